package smo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
)

func ones(n int, v float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// randX returns n × d standard normal rows drawn from PCG(seed, 1).
func randX(n, d int, seed uint64) *mat.Dense { return testmat.Normal(n, d, rand.NewPCG(seed, 1)) }

// kktGap returns m(α) − M(α) computed from the result's gradient, and the
// largest violation of feasibility.
func kktGap(p Problem, r *Result) (gap, infeas float64) {
	up, low := math.Inf(-1), math.Inf(1)
	var sum float64
	for t, a := range r.Alpha {
		y := 1.0
		if p.Y != nil {
			y = float64(p.Y[t])
		}
		sum += y * a
		infeas = math.Max(infeas, math.Max(-a, a-p.C[t]))
		v := -y * r.Gradient[t]
		inUp := (y > 0 && a < p.C[t]) || (y < 0 && a > 0)
		inLow := (y > 0 && a > 0) || (y < 0 && a < p.C[t])
		if inUp {
			up = math.Max(up, v)
		}
		if inLow {
			low = math.Min(low, v)
		}
	}
	infeas = math.Max(infeas, math.Abs(sum-p.Delta))
	return up - low, infeas
}

// Closed-form problems: the optimum is found by hand from the KKT
// conditions of the two-variable QP.
func TestSolveClosedForm(t *testing.T) {
	id := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	tests := []struct {
		name    string
		prob    Problem
		alpha   []float64
		obj     float64
		rho     float64
		checkRo bool
	}{
		// min ½(a²+b²) s.t. a+b = 1: a = b = ½, f = ¼, G = (½, ½) so ρ = ½.
		{"one-class", Problem{Q: NewGramMatrix(id, nil, 1), C: []float64{1, 1}, Delta: 1}, []float64{0.5, 0.5}, 0.25, 0.5, true},
		// min ½(a²+b²) − a − b s.t. a − b = 0: a = b = 1, f = −1.
		{"two-class", Problem{Q: NewGramMatrix(id, []int8{1, -1}, 1), P: []float64{-1, -1}, Y: []int8{1, -1}, C: []float64{10, 10}}, []float64{1, 1}, -1, 0, true},
		// The same from the feasible start (0.2, 0.8).
		{"start", Problem{Q: NewGramMatrix(id, nil, 1), C: []float64{1, 1}, Delta: 1, Alpha0: []float64{0.2, 0.8}}, []float64{0.5, 0.5}, 0.25, 0.5, true},
		// The box binds: a ≤ 0.3, so a = 0.3, b = 0.7, f = ½(0.09+0.49) = 0.29.
		{"bound", Problem{Q: NewGramMatrix(id, nil, 1), C: []float64{0.3, 1}, Delta: 1}, []float64{0.3, 0.7}, 0.29, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Solve(context.Background(), tc.prob, Settings{Tol: 1e-9})
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range tc.alpha {
				if math.Abs(r.Alpha[i]-a) > 1e-7 {
					t.Errorf("alpha[%d] = %v, want %v", i, r.Alpha[i], a)
				}
			}
			if math.Abs(r.Objective-tc.obj) > 1e-7 {
				t.Errorf("objective %v, want %v", r.Objective, tc.obj)
			}
			if tc.checkRo && math.Abs(r.Rho-tc.rho) > 1e-7 {
				t.Errorf("rho %v, want %v", r.Rho, tc.rho)
			}
			if r.Status != Optimal {
				t.Errorf("status %v", r.Status)
			}
		})
	}
}

// TestKKT checks the optimality conditions m(α) − M(α) ≤ Tol and
// feasibility on random kernel problems of both label kinds, with and
// without shrinking and with a cache far smaller than Q (which must give the
// same solution and keep its peak under the budget).
func TestKKT(t *testing.T) {
	for _, tc := range []struct {
		n       int
		labels  bool
		shrink  bool
		cacheMB float64
	}{
		{300, false, true, 0}, {300, false, false, 0}, {400, true, true, 0}, {400, true, false, 0.05}, {1500, false, true, 0.05},
	} {
		t.Run(fmt.Sprintf("n=%d/labels=%v/shrink=%v/cache=%g", tc.n, tc.labels, tc.shrink, tc.cacheMB), func(t *testing.T) {
			X := randX(tc.n, 5, uint64(tc.n))
			var y []int8
			if tc.labels {
				y = make([]int8, tc.n)
				for i := range y {
					y[i] = 1
					if i%7 == 0 {
						y[i] = -1
					}
				}
			}
			k := kernel.RBF{Gamma: 0.2}
			q := NewKernelMatrix(k, X, y, 2)
			p := make([]float64, tc.n)
			for i := range p {
				p[i] = -0.3 * q.Diag(i)
				if y != nil {
					p[i] *= float64(y[i])
				}
			}
			prob := Problem{Q: q, P: p, Y: y, C: ones(tc.n, 1), Delta: 0.3 * float64(tc.n)}
			tol := 1e-4
			r, err := Solve(context.Background(), prob, Settings{Tol: tol, NoShrinking: !tc.shrink, CacheMB: tc.cacheMB})
			if err != nil {
				t.Fatal(err)
			}
			gap, inf := kktGap(prob, r)
			// The gradient is accumulated from single-precision Q values, so
			// the recomputed gap may exceed Tol by float32 rounding.
			if gap > tol*1.01 || inf > 1e-9*float64(tc.n) {
				t.Errorf("KKT gap %v (tol %v), infeasibility %v", gap, tol, inf)
			}
			if r.CachePeakBytes > r.CacheBudgetBytes {
				t.Errorf("cache peak %d bytes above budget %d", r.CachePeakBytes, r.CacheBudgetBytes)
			}
			ref, err := Solve(context.Background(), prob, Settings{Tol: tol, NoShrinking: true})
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(r.Objective-ref.Objective) / math.Abs(ref.Objective); d > 1e-5 {
				t.Errorf("objective %v differs from the unshrunk large-cache run %v (rel %v)", r.Objective, ref.Objective, d)
			}
		})
	}
}

type negDiag struct{ *GramMatrix }

func (negDiag) Diag(i int) float64 { return -1 }

// TestSolveErrors is issue 3, item 7 at the solver level.
func TestSolveErrors(t *testing.T) {
	id := mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	// An indefinite "kernel": eigenvalues of [[1, 2], [2, 1]] are 3 and −1.
	indef := mat.NewDense(2, 2, []float64{1, 2, 2, 1})
	bg := context.Background()
	cancelled, cancel := context.WithCancel(bg)
	cancel()
	X := randX(200, 3, 9)
	big := Problem{Q: NewKernelMatrix(kernel.RBF{Gamma: 1}, X, nil, 1), C: ones(200, 1), Delta: 50}
	tests := []struct {
		name string
		ctx  context.Context
		prob Problem
		set  Settings
		want error // nil: any error
	}{
		{"infeasible", bg, Problem{Q: NewGramMatrix(id, nil, 1), C: ones(3, 0.2), Delta: 1}, Settings{}, nil},
		// From α = (1, 0), G = Qα + p = (1, −1) asks to move along (−1, 1),
		// where the curvature 1 + 1 − 2·2 = −2 is negative.
		{"not PSD", bg, Problem{Q: NewGramMatrix(indef, nil, 1), P: []float64{0, -3}, C: ones(2, 1), Delta: 1}, Settings{}, ErrNotPSD},
		{"negative diagonal", bg, Problem{Q: negDiag{NewGramMatrix(id, nil, 1)}, C: ones(3, 1), Delta: 1}, Settings{}, ErrNotPSD},
		{"infeasible start", bg, Problem{Q: NewGramMatrix(id, nil, 1), C: ones(3, 1), Delta: 1, Alpha0: []float64{0.5, 0, 0}}, Settings{}, nil},
		{"bad label", bg, Problem{Q: NewGramMatrix(id, nil, 1), Y: []int8{1, 0, 1}, C: ones(3, 1), Delta: 1}, Settings{}, nil},
		{"bad bound", bg, Problem{Q: NewGramMatrix(id, nil, 1), C: []float64{1, 0, 1}, Delta: 1}, Settings{}, nil},
		{"bad tol", bg, Problem{Q: NewGramMatrix(id, nil, 1), C: ones(3, 1), Delta: 1}, Settings{Tol: -1}, nil},
		{"cancelled", cancelled, big, Settings{}, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Solve(tc.ctx, tc.prob, tc.set)
			if err == nil {
				t.Fatalf("no error; result %+v", r)
			}
			if tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestIterationLimit: reaching MaxIter is a status, not an error, and α
// stays feasible.
func TestIterationLimit(t *testing.T) {
	X := randX(300, 4, 3)
	prob := Problem{Q: NewKernelMatrix(kernel.RBF{Gamma: 0.5}, X, nil, 1), C: ones(300, 1), Delta: 60}
	r, err := Solve(context.Background(), prob, Settings{MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != IterationLimit || !errors.Is(r.Status.Err(), ErrIterationLimit) || r.Iterations != 5 {
		t.Fatalf("status %v after %d iterations, want %v after 5", r.Status, r.Iterations, IterationLimit)
	}
	if _, inf := kktGap(prob, r); inf > 1e-9 {
		t.Errorf("infeasible by %v", inf)
	}
	if r.Gap < 1e-3 {
		t.Errorf("gap %v: the limit should have stopped a non-optimal solve", r.Gap)
	}
}

// The cache drops the least recently used column, recycles its buffer and
// never holds more than its budget.
func TestCache(t *testing.T) {
	c := newCache(4, 8) // room for two columns of 4
	a := c.get(0)
	if a.state != colEmpty || len(a.data) != 4 {
		t.Fatalf("fresh column: state %d len %d", a.state, len(a.data))
	}
	copy(a.data, []float32{0, 1, 2, 3})
	a.state = colFull
	b := c.get(1)
	b.state = colFull
	bbuf := &b.data[0]
	c.get(0)      // 0 is now the most recent
	e := c.get(2) // evicts 1 and takes its buffer
	if c.head[1].data != nil || c.head[1].state != colEmpty {
		t.Error("column 1 should have been evicted")
	}
	if &e.data[0] != bbuf {
		t.Error("the evicted buffer was not recycled")
	}
	if got := c.get(0); got.state != colFull || got.data[3] != 3 {
		t.Errorf("column 0 lost: %+v", got)
	}
	if c.used > c.budget || c.peak > c.budget {
		t.Errorf("used %d peak %d above budget %d", c.used, c.peak, c.budget)
	}
}

func TestExpansion(t *testing.T) {
	X := randX(50, 3, 4)
	coef := make([]float64, 50)
	coef[3], coef[10] = 0.25, -0.75
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 0.7}, kernel.Linear{}} {
		e := NewExpansion(k, X, coef)
		if e.Len() != 2 {
			t.Fatalf("kept %d support vectors, want 2", e.Len())
		}
		Y := randX(20, 3, 5)
		got := e.Eval(nil, Y)
		for i := 0; i < 20; i++ {
			y := Y.RawRowView(i)
			want := 0.25*k.Eval(X.RawRowView(3), y) - 0.75*k.Eval(X.RawRowView(10), y)
			if math.Abs(got[i]-want) > 1e-10*math.Max(1, math.Abs(want)) { // expNeg: 1e-11 relative
				t.Errorf("%T row %d: %v, want %v", k, i, got[i], want)
			}
		}
	}
}

// expNeg against math.Exp over the range RBF columns use.
func TestExpNeg(t *testing.T) {
	for x := 0.0; x > -708; x -= 0.00731 {
		want := math.Exp(x)
		if got := expNeg(x); math.Abs(got-want) > 1e-11*want {
			t.Fatalf("expNeg(%v) = %v, math.Exp %v", x, got, want)
		}
	}
	if expNeg(0) != 1 || expNeg(-800) != 0 {
		t.Error("expNeg(0) or expNeg(−800)")
	}
}

// KernelMatrix columns (RBF fast path with the inlined exp, and the generic
// path) agree with scale·y_i·y_j·k(x_i, x_j) to single precision, in
// parallel and serial lengths.
func TestKernelMatrixColumn(t *testing.T) {
	X := randX(1500, 7, 21)
	y := make([]int8, 1500)
	for i := range y {
		y[i] = 1
		if i%3 == 0 {
			y[i] = -1
		}
	}
	for _, k := range []kernel.Kernel{kernel.RBF{Gamma: 0.3}, kernel.RBF{Gamma: 40}, kernel.Laplacian{Gamma: 0.5}, kernel.Polynomial{Gamma: 0.2, Coef0: 1, Degree: 3}} {
		q := NewKernelMatrix(k, X, y, 2)
		for _, rows := range [][]int{{0, 5, 9}, q.allRows()} {
			dst := make([]float32, 1500)
			q.Column(dst, 4, rows)
			for _, i := range rows {
				want := 2 * float64(y[i]) * float64(y[4]) * k.Eval(X.RawRowView(i), X.RawRowView(4))
				if math.Abs(float64(dst[i])-want) > 1.2e-7*math.Abs(want)+1.5e-45 { // float32 ulp; below its subnormals, 0
					t.Fatalf("%v: Q[%d][4] = %v, want %v", k, i, dst[i], want)
				}
			}
		}
	}
}

func (m *KernelMatrix) allRows() []int {
	r := make([]int, m.Len())
	for i := range r {
		r[i] = i
	}
	return r
}

// cancelAfter cancels a context after n column computations.
type cancelAfter struct {
	Matrix
	n      int
	cancel context.CancelFunc
}

func (m *cancelAfter) Column(dst []float32, j int, rows []int) {
	if m.n--; m.n == 0 {
		m.cancel()
	}
	m.Matrix.Column(dst, j, rows)
}

// Cancelling during the iterations stops the solve with ctx.Err(); the
// progress callback is called during the initial gradient, ending at its
// total, and every 1,000 iterations (and at least every progressEvery),
// ending at the iteration limit when the solve stops.
func TestCancelDuringSolve(t *testing.T) {
	X := randX(1200, 4, 31)
	ctx, cancel := context.WithCancel(context.Background())
	q := &cancelAfter{Matrix: NewKernelMatrix(kernel.RBF{Gamma: 2}, X, nil, 1), n: 700, cancel: cancel}
	prob := Problem{Q: q, C: ones(1200, 1), Delta: 600}
	// 600 columns go to the initial gradient; the 700th comes mid-iterations.
	if _, err := Solve(ctx, prob, Settings{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	// The initial gradient reports ("gradient", columns done, n), rising
	// to n; the iterations ("smo", count, limit), rising to the limit
	// (10⁷, LIBSVM's default for 1,200 rows).
	const limit = 10000000
	grad, smo := []int{}, []int{}
	r, err := Solve(context.Background(), Problem{Q: NewKernelMatrix(kernel.RBF{Gamma: 2}, X, nil, 1), C: ones(1200, 1), Delta: 600},
		Settings{Progress: func(stage string, done, total int) {
			switch {
			case stage == "gradient" && len(smo) == 0 && total == 1200:
				grad = append(grad, done)
			case stage == "smo" && total == limit:
				smo = append(smo, done)
			default:
				t.Errorf("progress %q %d %d", stage, done, total)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	for name, reps := range map[string][]int{"gradient": grad, "smo": smo} {
		if !slices.IsSorted(reps) {
			t.Errorf("%s reports go back: %v", name, reps)
		}
	}
	if len(grad) == 0 || grad[len(grad)-1] != 1200 {
		t.Errorf("gradient reports %v do not end at 1200", grad)
	}
	if len(smo) < r.Iterations/1000+1 || smo[len(smo)-1] != limit {
		t.Errorf("%d smo reports for %d iterations, the last %v: want one every 1,000 and the limit %d at the end", len(smo), r.Iterations, smo[len(smo)-1:], limit)
	}
	for _, v := range smo[:len(smo)-1] {
		if v > r.Iterations {
			t.Errorf("smo report %d past the %d iterations made", v, r.Iterations)
		}
	}
}

// mulAdd (the initial gradient in one symmetric pass) equals the sum over
// columns that the solver otherwise forms: Q·a and Q·b from Column, with
// labels (sign flips) and with both workers' row ranges, to 1e-12 relative
// (the same float32 values, added in another order).
func TestMulAddEqualsColumns(t *testing.T) {
	for _, n := range []int{700, 1500} {
		X := randX(n, 7, uint64(n))
		y := make([]int8, n)
		for i := range y {
			y[i] = 1
			if i%3 == 0 {
				y[i] = -1
			}
		}
		for _, labels := range [][]int8{nil, y} {
			q := NewKernelMatrix(kernel.RBF{Gamma: 0.3}, X, labels, 0.5)
			a, b := make([]float64, n), make([]float64, n)
			for i := range a {
				a[i] = float64(i%5) / 4
				if i%2 == 0 {
					b[i] = 1
				}
			}
			want, wantB := make([]float64, n), make([]float64, n)
			eachColumn(q, n, func(j int, col []float32) {
				for i := range want {
					want[i] += a[j] * float64(col[i])
					wantB[i] += b[j] * float64(col[i])
				}
			})
			got, gotB := make([]float64, n), make([]float64, n)
			if ok, err := q.mulAdd(context.Background(), got, a, gotB, b, nil); !ok || err != nil {
				t.Fatal("mulAdd declined a dense RBF matrix")
			}
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) ||
					math.Abs(gotB[i]-wantB[i]) > 1e-12*math.Max(1, math.Abs(wantB[i])) {
					t.Fatalf("n=%d labels=%v row %d: mulAdd %v %v, columns %v %v", n, labels != nil, i, got[i], gotB[i], want[i], wantB[i])
				}
			}
		}
	}
}

// fillAll stores the matrix Column would give, every entry to the last bit,
// with labels.
func TestFillAllEqualsColumns(t *testing.T) {
	const n = 900
	X := randX(n, 5, 7)
	y := make([]int8, n)
	for i := range y {
		y[i] = int8(1 - 2*(i%2))
	}
	q := NewKernelMatrix(kernel.RBF{Gamma: 0.4}, X, y, 0.7)
	cols := filledColumns(t, q, n)
	eachColumn(q, n, func(j int, want []float32) {
		for i := range want {
			if cols[j][i] != want[i] {
				t.Fatalf("Q[%d][%d]: fillAll %v, Column %v", i, j, cols[j][i], want[i])
			}
		}
	})
}

// eachColumn calls fn with each column j of the n × n matrix q, every row
// active, as Column gives it; col is one slice, refilled between calls.
func eachColumn(q *KernelMatrix, n int, fn func(j int, col []float32)) {
	col := make([]float32, n)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	for j := 0; j < n; j++ {
		q.Column(col, j, all)
		fn(j, col)
	}
}

// The dense RBF expansion evaluated in blocks of rows (fastmath.MulNN
// against the transposed support vectors, from evalBlock rows on, split
// over the workers when the work is large) equals the sum of kernel values
// term by term, for widths with and without whole blocks of the product.
func TestExpansionRBFBlocks(t *testing.T) {
	for _, d := range []int{1, 3, 13} {
		X := randX(300, d, 6)
		coef := make([]float64, 300)
		for i := range coef {
			if i%3 != 0 {
				coef[i] = math.Sin(float64(i))
			}
		}
		k := kernel.RBF{Gamma: 0.3}
		e := NewExpansion(k, X, coef)
		for _, m := range []int{15, 16, 37, 250} { // 250 × 200 SVs: two workers
			Y := randX(m, d, 7)
			got := e.Eval(nil, Y)
			for i := 0; i < m; i++ {
				var want, mag float64
				for j, c := range coef {
					v := c * k.Eval(X.RawRowView(j), Y.RawRowView(i))
					want += v
					mag += math.Abs(v)
				}
				if math.Abs(got[i]-want) > 1e-10*max(1, mag) {
					t.Fatalf("d=%d m=%d row %d: %v, want %v", d, m, i, got[i], want)
				}
			}
		}
	}
}

// countAfter counts the columns computed after its context ended.
type countAfter struct {
	Matrix
	ctx    context.Context
	n      int // columns before the cancel
	calls  int
	late   int
	cancel context.CancelFunc
}

func (m *countAfter) Column(dst []float32, j int, rows []int) {
	m.calls++
	if m.calls == m.n {
		m.cancel()
	} else if m.ctx.Err() != nil {
		m.late++
	}
	m.Matrix.Column(dst, j, rows)
}

// Wherever a solve is cancelled (here after every 40th column of a solve
// with shrinking, whose gradient is reconstructed from many columns at
// once), it computes at most the columns of one ctxEvery of work before it
// returns context.Canceled.
func TestCancelEverywhere(t *testing.T) {
	const n = 1500
	X := randX(n, 4, 32)
	newQ := func() Matrix { return NewKernelMatrix(kernel.RBF{Gamma: 4}, X, nil, 1) }
	prob := func(q Matrix) Problem { return Problem{Q: q, C: ones(n, 1), Delta: 0.3 * n} }
	all := &countAfter{Matrix: newQ(), ctx: context.Background(), n: -1}
	if _, err := Solve(context.Background(), prob(all), Settings{Tol: 1e-5}); err != nil {
		t.Fatal(err)
	}
	// A column costs n·entryCost units (4 values + 4 an entry).
	bound := ctxEvery/(n*8) + 1
	worst := 0
	for k := 1; k < all.calls; k += 40 {
		ctx, cancel := context.WithCancel(context.Background())
		q := &countAfter{Matrix: newQ(), ctx: ctx, n: k, cancel: cancel}
		if _, err := Solve(ctx, prob(q), Settings{Tol: 1e-5}); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled after %d of %d columns: %v", k, all.calls, err)
		}
		worst = max(worst, q.late)
	}
	if worst > bound {
		t.Errorf("up to %d columns computed after the cancel, want at most %d", worst, bound)
	}
	t.Logf("%d columns in all; at most %d after a cancel (bound %d)", all.calls, worst, bound)
}

// filledColumns returns the n columns of q, filled in one pass (fillAll).
func filledColumns(t *testing.T, q *KernelMatrix, n int) [][]float32 {
	t.Helper()
	cols := make([][]float32, n)
	for j := range cols {
		cols[j] = make([]float32, n)
	}
	if ok, err := q.fillAll(context.Background(), cols, nil); !ok || err != nil {
		t.Fatalf("fillAll: %v %v", ok, err)
	}
	return cols
}
