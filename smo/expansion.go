package smo

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// Expansion is the kernel expansion f(x) = Σ_i Coef_i · k(SV_i, x) of a dual
// solution, kept over its support vectors only. It is safe for concurrent
// use once built.
type Expansion struct {
	Kernel kernel.Kernel
	// SV holds the support vectors: row-major, len(Coef) × D, when SVPtr
	// is nil; otherwise (support vectors of sparse input) the non-zero
	// values, support vector i's being SV[SVPtr[i]:SVPtr[i+1]] at the
	// columns SVInd[SVPtr[i]:SVPtr[i+1]] (ascending).
	SV    []float64
	SVInd []int
	SVPtr []int
	Coef  []float64
	D     int

	rows rowStore
}

// NewExpansion keeps the rows of X (n × d) whose coefficient in coef is
// non-zero, sparse when X is sparse. coef has length n and is not
// retained.
func NewExpansion(k kernel.Kernel, X mat.Matrix, coef []float64) *Expansion {
	X = csr.Input(X)

	n, d := X.Dims()
	if len(coef) != n {
		panic("smo: coefficient length differs from the row count")
	}
	e := &Expansion{Kernel: k, D: d}
	for _, c := range coef {
		if c != 0 {
			e.Coef = append(e.Coef, c)
		}
	}
	e.rows = newRowStore(X, func(i int) bool { return coef[i] != 0 })
	if e.rows.ptr != nil {
		e.SV, e.SVInd, e.SVPtr = e.rows.val, e.rows.ind, e.rows.ptr
	} else {
		e.SV = e.rows.dense
	}
	return e
}

// Init precomputes what Eval needs after SV, SVInd, SVPtr, Coef, D and
// Kernel were set directly (as when decoding a saved model).
func (e *Expansion) Init() {
	e.rows = rowStore{d: e.D, dense: e.SV}
	if e.SVPtr != nil {
		e.rows = rowStore{d: e.D, ptr: e.SVPtr, ind: e.SVInd, val: e.SV}
	}
	e.rows.norms()
}

// Len returns the number of support vectors.
func (e *Expansion) Len() int { return len(e.Coef) }

// DoSV calls fn for the non-zero entries of support vector i, in
// ascending column order.
func (e *Expansion) DoSV(i int, fn func(j int, v float64)) {
	if e.SVPtr != nil {
		ind, val := e.rows.sparseRow(i)
		for t, j := range ind {
			fn(j, val[t])
		}
		return
	}
	for j, v := range e.rows.denseRow(i) {
		if v != 0 {
			fn(j, v)
		}
	}
}

// Eval sets dst[r] = f(x_r) for the rows of X, whose column count must be
// D, and returns dst (resized, or allocated when too short). Rows are split
// over runtime.GOMAXPROCS(0) goroutines. A sparse X against sparse
// support vectors is read through the non-zeros only. It panics where
// EvalContext returns an error.
func (e *Expansion) Eval(dst []float64, X mat.Matrix) []float64 {
	dst, err := e.EvalContext(context.Background(), dst, X)
	if err != nil {
		panic(err.Error())
	}
	return dst
}

// EvalContext is Eval that returns ctx.Err() soon after ctx ends: the rows
// go to the workers in blocks of about evalWork kernel terms, and ctx is
// checked before each block. It never panics: a column count other than
// D, an expansion whose arrays disagree (one not built by NewExpansion or
// Init) and, as a last line, a panic in a worker are returned as errors.
// The value of a row does not depend on the other rows of X nor on how
// the rows are split (dense RBF rows always go through the blocked
// product).
func (e *Expansion) EvalContext(ctx context.Context, dst []float64, X mat.Matrix) ([]float64, error) {
	X = csr.Input(X)
	m, d := X.Dims()
	if d != e.D {
		return nil, fmt.Errorf("smo: expansion dimension mismatch: %d columns, the expansion has %d", d, e.D)
	}
	if err := e.consistent(); err != nil {
		return nil, err
	}
	if cap(dst) < m {
		dst = make([]float64, m)
	}
	dst = dst[:m]
	if m == 0 {
		return dst, nil
	}
	nSV := len(e.Coef)
	_, rbf := e.Kernel.(kernel.RBF)
	var negGamma float64
	if rbf {
		negGamma = -e.Kernel.(kernel.RBF).Gamma
	}
	sp, sparseX := X.(*sparse.CSR)
	rm, raw := X.(mat.RawMatrixer)
	// Dense RBF against dense support vectors: the inner products of a
	// block of rows with every support vector in one register-blocked
	// product (fastmath.MulNN against the support vectors transposed),
	// whatever the number of rows, so that a row's value is the same
	// scored alone or among others.
	blocked := rbf && !sparseX && e.SVPtr == nil && nSV > 0
	var svT []float64
	if blocked {
		svT = e.transposedSV()
	}
	// Rows per block: about evalWork multiply-adds (a millisecond or
	// two), a whole number of evalBlock rows on the blocked path, and at
	// least one block per worker.
	perRow := int64(nSV) * int64(len(e.SV)/max(nSV, 1)+4)
	if sparseX {
		perRow += int64(nSV) * int64(sp.NNZ()/m)
	}
	rows := int(max(1, min(int64(m), evalWork/max(perRow, 1))))
	if w := runtime.GOMAXPROCS(0); int64(m)*perRow >= evalParallel && w > 1 {
		rows = min(rows, (m+w-1)/w)
	} else if int64(m)*perRow < evalParallel {
		rows = m
	}
	if blocked && rows > evalBlock {
		rows = (rows + evalBlock - 1) / evalBlock * evalBlock
	}
	nb := (m + rows - 1) / rows
	// Sparse rows against sparse RBF support vectors: each row is
	// scattered and the support vectors gather from it (scatters).
	scatter := rbf && sparseX && e.SVPtr != nil && scatters(d, sp.NNZ(), m)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		failOnce sync.Once
		failed   error
	)
	err := parallel.ForBlocksContext(ctx, nb, func() func(b int) {
		var (
			scratch []float64
			x, sv   row
			g, part []float64 // blocked path: a block's products
			block   []float64 // blocked path, X not raw: a block's rows
			xbuf    []float64 // sparse rows, scattered
		)
		return func(b int) {
			defer func() {
				if r := recover(); r != nil {
					failOnce.Do(func() { failed = fmt.Errorf("smo: evaluating the expansion: %v", r) })
					cancel()
				}
			}()
			lo, hi := b*rows, min(m, (b+1)*rows)
			if blocked {
				if g == nil {
					g = make([]float64, evalBlock*nSV)
					if d > evalDepth {
						part = make([]float64, evalBlock*nSV)
					}
				}
				if raw {
					e.evalRBFBlocks(dst, rm.RawMatrix(), svT, g, part, negGamma, lo, hi)
					return
				}
				if block == nil {
					block = make([]float64, evalBlock*d)
				}
				for r0 := lo; r0 < hi; r0 += evalBlock {
					r1 := min(hi, r0+evalBlock)
					for r := r0; r < r1; r++ {
						mat.Row(block[(r-r0)*d:(r-r0+1)*d], r, X)
					}
					x := blas64.General{Rows: r1 - r0, Cols: d, Stride: d, Data: block}
					e.evalRBFBlocks(dst[r0:r1], x, svT, g, part, negGamma, 0, r1-r0)
				}
				return
			}
			if !sparseX && !raw && scratch == nil {
				scratch = make([]float64, d)
			}
			for r := lo; r < hi; r++ {
				x.setFrom(X, r, scratch) // zeroes the last row's scatter
				if scatter {
					if xbuf == nil {
						xbuf = make([]float64, d)
					}
					x.buf = xbuf
					x.dense(d)
				}
				var s float64
				for i, c := range e.Coef {
					sv.setStored(&e.rows, i)
					s += c * eval(e.Kernel, rbf, negGamma, &sv, &x, d)
				}
				dst[r] = s
			}
		}
	})
	if failed != nil {
		return nil, failed
	}
	if err != nil {
		return nil, err
	}
	return dst, nil
}

// evalWork is the number of multiply-adds (support vectors times values
// per kernel term) of a block of rows EvalContext hands a worker, between
// two checks of the context: a millisecond or two.
const evalWork = 1 << 21

// evalParallel is the work below which EvalContext evaluates on the
// calling goroutine: a goroutine hand-off costs more than it saves.
const evalParallel = 1 << 17

// consistent reports an error unless the expansion's arrays agree with
// each other (Init or NewExpansion made them), so that no evaluation can
// index past them.
func (e *Expansion) consistent() error {
	n := len(e.Coef)
	bad := func(what string) error { return fmt.Errorf("smo: inconsistent expansion: %s", what) }
	switch {
	case e.D < 1:
		return bad("no columns")
	case e.rows.d != e.D || len(e.rows.sq) != n:
		return bad("not initialised (Init)")
	case e.rows.ptr == nil:
		if len(e.rows.dense)%e.D != 0 || len(e.rows.dense)/e.D != n {
			return bad("support vector values for another count or width")
		}
	default:
		if len(e.rows.ptr) != n+1 || len(e.rows.ind) != len(e.rows.val) || e.rows.ptr[n] > len(e.rows.val) {
			return bad("support vector offsets")
		}
	}
	return nil
}

// evalBlock is the number of rows evalRBFBlocks takes per product.
const evalBlock = 16

// evalDepth is the number of columns of one of evalRBFBlocks' products:
// a panel of evalDepth rows of the transposed support vectors, by the
// columns MulNN takes at a time, fits the L2 cache.
const evalDepth = 256

// EvalBytes bounds the bytes Eval allocates for m rows of d columns
// against nSV support vectors: the scores, the support vectors transposed
// (dense RBF) and, per worker, a block of evalBlock rows of kernel values
// and of partial products, and a copy of the block's rows (for rows not
// held in one array). Sparse rows (sparseX) take neither the transposed
// support vectors nor dense rows: only the scores, a row of kernel values
// per worker and, for rows of at most scatterMaxCols columns, a row
// scattered per worker (counted as dense, a model fitted on 300 rows of
// 10⁷ hashed columns could not score its own training file).
func EvalBytes(m, d, nSV int, sparseX bool) int64 {
	w := int64(runtime.GOMAXPROCS(0))
	if sparseX {
		return 8 * (int64(m) + w*(int64(nSV)+int64(min(d, scatterMaxCols))))
	}
	return 8 * (int64(m) + int64(d)*int64(nSV) + w*evalBlock*(2*int64(nSV)+int64(d)))
}

// transposedSV returns the dense support vectors transposed, D × len(Coef).
func (e *Expansion) transposedSV() []float64 {
	n, d := len(e.Coef), e.D
	t := make([]float64, d*n)
	for i := 0; i < n; i++ {
		for j, v := range e.rows.denseRow(i) {
			t[j*n+i] = v
		}
	}
	return t
}

// evalRBFBlocks sets dst[r] = Σ_i Coef_i·exp(−γ‖sv_i − x_r‖²) for the rows
// lo..hi−1 of the dense X, evalBlock rows at a time: their inner products
// with all support vectors from one fastmath.MulNN (svT is the transposed
// support vectors), then the distances ‖sv_i‖² + ‖x_r‖² − 2⟨sv_i, x_r⟩
// (clamped at 0) exponentiated four at a time. g holds evalBlock × n
// values.
func (e *Expansion) evalRBFBlocks(dst []float64, x blas64.General, svT, g, part []float64, negGamma float64, lo, hi int) {
	n, d := len(e.Coef), e.D
	for r0 := lo; r0 < hi; r0 += evalBlock {
		rows := min(evalBlock, hi-r0)
		// The products over the columns evalDepth at a time, the partial
		// sums added in column order: a panel of the transposed support
		// vectors then stays in cache while the block's rows pass over
		// it (in one product over 20,000 columns each pass went to
		// memory: 75 Mflop/s). The order depends on D only, not on the
		// rows.
		a := x.Data[r0*x.Stride:]
		fastmath.MulNN(g, n, a, x.Stride, svT, n, rows, n, min(d, evalDepth))
		for l0 := evalDepth; l0 < d; l0 += evalDepth {
			fastmath.MulNN(part, n, a[l0:], x.Stride, svT[l0*n:], n, rows, n, min(d, l0+evalDepth)-l0)
			for k, v := range part[:rows*n] {
				g[k] += v
			}
		}
		for r := 0; r < rows; r++ {
			xr := x.Data[(r0+r)*x.Stride:][:d]
			xsq := dot(xr, xr)
			arg := g[r*n : (r+1)*n]
			for i, v := range arg {
				arg[i] = negGamma * fastmath.SqDist(e.rows.sq[i], xsq, v)
			}
			fastmath.Exp(arg, arg)
			var s float64
			for i, c := range e.Coef {
				s += c * arg[i]
			}
			dst[r0+r] = s
		}
	}
}
