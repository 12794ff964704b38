package smo

import (
	"runtime"
	"sync"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
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
// support vectors is read through the non-zeros only.
func (e *Expansion) Eval(dst []float64, X mat.Matrix) []float64 {
	X = csr.Input(X)

	m, d := X.Dims()
	if d != e.D {
		panic("smo: expansion dimension mismatch")
	}
	if cap(dst) < m {
		dst = make([]float64, m)
	}
	dst = dst[:m]
	w := runtime.GOMAXPROCS(0)
	if work := m * len(e.Coef); work < 1<<15 {
		w = 1
	}
	if w > m {
		w = m
	}
	_, rbf := e.Kernel.(kernel.RBF)
	var negGamma float64
	if rbf {
		negGamma = -e.Kernel.(kernel.RBF).Gamma
	}
	_, sparseX := X.(*sparse.CSR)
	rm, raw := X.(mat.RawMatrixer)
	// Dense RBF against dense support vectors: the inner products of a
	// block of rows with every support vector in one register-blocked
	// product (fastmath.MulNN against the support vectors transposed).
	var svT []float64
	if rbf && raw && e.SVPtr == nil && len(e.Coef) > 0 && m >= evalBlock {
		svT = e.transposedSV()
	}
	var wg sync.WaitGroup
	chunk := (m + w - 1) / w
	for lo := 0; lo < m; lo += chunk {
		hi := min(lo+chunk, m)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			if svT != nil {
				e.evalRBFBlocks(dst, rm.RawMatrix(), svT, negGamma, lo, hi)
				return
			}
			var scratch []float64
			if !sparseX && !raw {
				scratch = make([]float64, d)
			}
			var x, sv row
			var arg []float64
			for r := lo; r < hi; r++ {
				x.setFrom(X, r, scratch)
				var s float64
				if rbf && x.x != nil && e.SVPtr == nil {
					// Dense RBF: LIBSVM's kernel expansion, with the
					// exponents gathered and exponentiated four at a
					// time (fastmath.Exp).
					if arg == nil {
						arg = make([]float64, len(e.Coef))
					}
					for i := range e.Coef {
						arg[i] = negGamma * fastmath.SqDist(e.rows.sq[i], x.sq, dot(e.rows.denseRow(i), x.x))
					}
					fastmath.Exp(arg, arg)
					for i, c := range e.Coef {
						s += c * arg[i]
					}
					dst[r] = s
					continue
				}
				for i, c := range e.Coef {
					sv.setStored(&e.rows, i)
					s += c * eval(e.Kernel, rbf, negGamma, &sv, &x, d)
				}
				dst[r] = s
			}
		}(lo, hi)
	}
	wg.Wait()
	return dst
}

// evalBlock is the number of rows evalRBFBlocks takes per product.
const evalBlock = 16

// EvalBytes bounds the bytes Eval allocates for m rows of d columns
// against nSV support vectors: the scores, the support vectors transposed
// (dense RBF) and, per worker, a block of evalBlock rows of kernel values
// and a row's scratch. Sparse rows (sparseX) take neither the transposed
// support vectors nor a dense scratch row: only the scores and a row of
// kernel arguments per worker (counted as dense, a model fitted on 300
// rows of 10⁷ hashed columns could not score its own training file).
func EvalBytes(m, d, nSV int, sparseX bool) int64 {
	w := int64(runtime.GOMAXPROCS(0))
	if sparseX {
		return 8 * (int64(m) + w*int64(nSV))
	}
	return 8 * (int64(m) + int64(d)*int64(nSV) + w*(evalBlock*int64(nSV)+int64(d)))
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
// (clamped at 0) exponentiated four at a time.
func (e *Expansion) evalRBFBlocks(dst []float64, x blas64.General, svT []float64, negGamma float64, lo, hi int) {
	n, d := len(e.Coef), e.D
	g := make([]float64, evalBlock*n)
	for r0 := lo; r0 < hi; r0 += evalBlock {
		rows := min(evalBlock, hi-r0)
		fastmath.MulNN(g, n, x.Data[r0*x.Stride:], x.Stride, svT, n, rows, n, d)
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
