package smo

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/kernel"
)

// EvalContext stops when its context ends: at once when it has ended
// before the call, and, cancelled from another goroutine, with
// context.Canceled rather than the values.
func TestEvalContextCancel(t *testing.T) {
	X := randX(2000, 10, 41)
	coef := ones(2000, 1.0/2000)
	e := NewExpansion(kernel.RBF{Gamma: 0.1}, X, coef)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.EvalContext(ctx, nil, X); !errors.Is(err, context.Canceled) {
		t.Fatalf("EvalContext with an ended context: %v", err)
	}
	// A long evaluation (4,000 × 2,000 kernel values, many blocks of
	// evalWork) cancelled by its first block: the check before the next
	// block returns.
	Y := randX(4000, 10, 42)
	ctx, cancel = context.WithCancel(context.Background())
	k := &cancelKernel{Kernel: kernel.Laplacian{Gamma: 0.1}, after: 1000, cancel: cancel}
	e = NewExpansion(k, X, coef)
	if _, err := e.EvalContext(ctx, nil, Y); !errors.Is(err, context.Canceled) {
		t.Fatalf("EvalContext cancelled during the evaluation: %v", err)
	}
	// Each worker ends the block it is in: about evalWork/(2,000·14)
	// = 74 rows of 2,000 values each, far below a tenth of the work.
	if n := k.n.Load(); n >= 4000*2000/10 {
		t.Errorf("%d of the %d kernel values computed: the cancel was not heard", n, 4000*2000)
	}
}

// cancelKernel cancels a context after a number of evaluations.
type cancelKernel struct {
	kernel.Kernel
	after  int64
	n      atomic.Int64
	cancel context.CancelFunc
}

func (k *cancelKernel) Eval(x, y []float64) float64 {
	if k.n.Add(1) == k.after {
		k.cancel()
	}
	return k.Kernel.Eval(x, y)
}

// An expansion whose arrays disagree (issue 34: D = 2⁶², four
// coefficients, no support vector values, which a size check that
// multiplied let through as 4·2⁶² wraps to 0) is an error of
// EvalContext and a panic of Eval on the caller's goroutine, never an
// index out of range in a worker; a column count other than D is an
// error too; and a panic in a worker (here the kernel's) is returned as
// an error.
func TestEvalContextNeverPanics(t *testing.T) {
	wrapped := &Expansion{Kernel: kernel.RBF{Gamma: 1}, D: 1 << 62, Coef: []float64{1, 1, 1, 1}}
	wrapped.Init()
	X := randX(3, 2, 1)
	if _, err := wrapped.EvalContext(context.Background(), nil, X); err == nil || !strings.HasPrefix(err.Error(), "smo: ") {
		t.Errorf("wrapped expansion, 2 columns: %v", err)
	}
	wrapped.D = 2
	wrapped.Init()
	if _, err := wrapped.EvalContext(context.Background(), nil, X); err == nil {
		t.Error("an expansion of 4 coefficients and no support vectors evaluated")
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.HasPrefix(r.(string), "smo: ") {
				t.Errorf("Eval of the wrapped expansion: recovered %v, want an smo panic", r)
			}
		}()
		wrapped.Eval(nil, X)
	}()

	e := NewExpansion(kernel.RBF{Gamma: 1}, X, []float64{1, 0, 1})
	if _, err := e.EvalContext(context.Background(), nil, randX(2, 3, 2)); err == nil {
		t.Error("3 columns against an expansion of 2 evaluated")
	}
	bad := NewExpansion(panicKernel{}, randX(300, 2, 3), ones(300, 1))
	if _, err := bad.EvalContext(context.Background(), nil, randX(600, 2, 4)); err == nil || !strings.Contains(err.Error(), "kernel broke") {
		t.Errorf("a kernel that panics: %v", err)
	}
}

type panicKernel struct{}

func (panicKernel) Eval(x, y []float64) float64 { panic("kernel broke") }

// A row's value does not depend on the rows it is evaluated with nor on
// how X holds them: the dense RBF rows go through the blocked product
// alone or among others, from a *mat.Dense or from a matrix read through
// At, bit for bit.
func TestEvalRowByRow(t *testing.T) {
	X := randX(300, 7, 8)
	coef := make([]float64, 300)
	for i := range coef {
		coef[i] = math.Cos(float64(i))
	}
	e := NewExpansion(kernel.RBF{Gamma: 0.2}, X, coef)
	Y := randX(70, 7, 9)
	all := e.Eval(nil, Y)
	viaAt := e.Eval(nil, atOnly{Y})
	for i := range 70 {
		one := e.Eval(nil, Y.Slice(i, i+1, 0, 7))
		if one[0] != all[i] || viaAt[i] != all[i] {
			t.Fatalf("row %d: %v alone, %v among 70, %v through At", i, one[0], all[i], viaAt[i])
		}
	}
}

// atOnly hides a matrix's raw storage.
type atOnly struct{ mat.Matrix }

// Rows wider than crossDepth are summed crossDepth coordinates at a time,
// in the columns and in the symmetric pass alike: fillAll stores what
// Column gives to the last bit, and the values are the kernel's to single
// precision. A pass whose context has ended reports it.
func TestWideRowsColumnsAgree(t *testing.T) {
	const n, d = 40, 700
	X := randX(n, d, 12)
	k := kernel.RBF{Gamma: 1.0 / d}
	q := NewKernelMatrix(k, X, nil, 1)
	cols := filledColumns(t, q, n)
	eachColumn(q, n, func(j int, col []float32) {
		for i, v := range col {
			if cols[j][i] != v {
				t.Fatalf("Q[%d][%d]: fillAll %v, Column %v", i, j, cols[j][i], v)
			}
			if want := k.Eval(X.RawRowView(i), X.RawRowView(j)); math.Abs(float64(v)-want) > 1.2e-7*want {
				t.Fatalf("Q[%d][%d] = %v, the kernel %v", i, j, v, want)
			}
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := q.fillAll(ctx, cols, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("fillAll with an ended context: %v", err)
	}
}
