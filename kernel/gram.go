package kernel

import (
	"context"
	"fmt"
	"math"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// blockRows is the number of rows of X one work item of Gram and Cross
// covers: a 64 × m block of the result, which for the BLAS paths is one gemm
// call followed by an element-wise pass while the block is still in cache.
const blockRows = 64

// Gram sets dst to the n × n kernel matrix K_ij = k(x_i, x_j) of the rows of
// X. If dst is empty it is allocated; otherwise it must be n × n, or Gram
// panics. dst must not share storage with X.
//
// The work is split into blocks of rows handed to runtime.GOMAXPROCS(0)
// workers; only the upper triangle is computed. RBF, Linear and Polynomial
// on dense input go through matrix multiplication (see the package
// documentation); a *sparse.CSR input is read row by row and never
// densified.
func Gram(dst *mat.SymDense, k Kernel, X mat.Matrix) {
	_ = GramContext(context.Background(), dst, k, X)
}

// GramContext is Gram that stops when ctx is done: the workers finish the
// block of rows they are on and return, and GramContext returns ctx.Err()
// with dst partly filled. No goroutine it started outlives it.
func GramContext(ctx context.Context, dst *mat.SymDense, k Kernel, X mat.Matrix) error {
	return GramProgress(ctx, dst, k, X, nil)
}

// GramProgress is GramContext that reports the rows done: progress(done,
// n) is called on the calling goroutine about every 100 ms while the
// workers run and once at the end (progress may be nil).
func GramProgress(ctx context.Context, dst *mat.SymDense, k Kernel, X mat.Matrix, progress func(done, total int)) error {
	X = csr.Input(X)

	n, _ := X.Dims()
	if dst.IsEmpty() {
		if n == 0 {
			return nil
		}
		dst.ReuseAsSym(n)
	}
	if r := dst.SymmetricDim(); r != n {
		panic(fmt.Sprintf("kernel: Gram dst is %d×%d, want %d×%d", r, r, n, n))
	}
	if n == 0 {
		return nil
	}
	raw := dst.RawSymmetric()
	out := blas64.General{Rows: n, Cols: n, Stride: raw.Stride, Data: raw.Data}
	return fill(ctx, out, canon(k), X, nil, true, progress)
}

// Cross sets dst to the n_X × n_Y kernel matrix K_ij = k(x_i, y_j) between
// the rows of X and the rows of Y. If dst is empty it is allocated;
// otherwise it must be n_X × n_Y, or Cross panics. X and Y must have the same
// number of columns. dst must not share storage with X or Y. Work is split
// as in Gram.
func Cross(dst *mat.Dense, k Kernel, X, Y mat.Matrix) {
	X = csr.Input(X)
	Y = csr.Input(Y)

	nx, dx := X.Dims()
	ny, dy := Y.Dims()
	if dx != dy {
		panic(fmt.Sprintf("kernel: Cross of %d-column X with %d-column Y", dx, dy))
	}
	if dst.IsEmpty() {
		if nx == 0 || ny == 0 {
			return
		}
		dst.ReuseAs(nx, ny)
	}
	if r, c := dst.Dims(); r != nx || c != ny {
		panic(fmt.Sprintf("kernel: Cross dst is %d×%d, want %d×%d", r, c, nx, ny))
	}
	if nx == 0 || ny == 0 {
		return
	}
	_ = fill(context.Background(), dst.RawMatrix(), canon(k), X, Y, false, nil) // no ctx: cannot fail
}

// Row sets dst[j] = k(x, y_j) for every row y_j of Y. len(dst) must equal
// the number of rows of Y and len(x) its number of columns, or Row panics.
// Row runs on the calling goroutine; a *sparse.CSR Y is read row by row.
func Row(dst []float64, k Kernel, x []float64, Y mat.Matrix) {
	Y = csr.Input(Y)

	m, d := Y.Dims()
	if len(dst) != m {
		panic(fmt.Sprintf("kernel: Row dst has length %d, want %d", len(dst), m))
	}
	if len(x) != d {
		panic(fmt.Sprintf("kernel: Row x has length %d, want %d", len(x), d))
	}
	k = canon(k)
	xs := &rowset{n: 1, d: d, dense: blas64.General{Rows: 1, Cols: d, Stride: d, Data: x}}
	switch y := Y.(type) {
	case *sparse.CSR:
		p := newPairs(k, xs, &rowset{n: m, d: d, csr: y})
		p.setX(0)
		for j := range dst {
			dst[j] = p.at(j)
		}
	case mat.RawMatrixer:
		ys := &rowset{n: m, d: d, dense: y.RawMatrix()}
		for j := range dst {
			dst[j] = k.Eval(x, ys.denseRow(j))
		}
	default:
		buf := make([]float64, d)
		for j := range dst {
			dst[j] = k.Eval(x, mat.Row(buf, j, Y))
		}
	}
}

// canon replaces a pointer to one of this package's kernels by the value, so
// the fast paths recognise it.
func canon(k Kernel) Kernel {
	switch p := k.(type) {
	case *RBF:
		return *p
	case *Laplacian:
		return *p
	case *Polynomial:
		return *p
	case *Linear:
		return *p
	case *Matern:
		return *p
	}
	return k
}

// rowset is read access to the rows of a matrix: dense (any stride) or CSR.
type rowset struct {
	n, d  int
	dense blas64.General // valid when csr is nil
	csr   *sparse.CSR
}

func newRowset(X mat.Matrix) *rowset {
	n, d := X.Dims()
	switch x := X.(type) {
	case *sparse.CSR:
		return &rowset{n: n, d: d, csr: x}
	case mat.RawMatrixer:
		return &rowset{n: n, d: d, dense: x.RawMatrix()}
	}
	return &rowset{n: n, d: d, dense: mat.DenseCopyOf(X).RawMatrix()}
}

func (r *rowset) denseRow(i int) []float64 {
	o := i * r.dense.Stride
	return r.dense.Data[o : o+r.d]
}

func (r *rowset) asDense() *mat.Dense {
	var m mat.Dense
	m.SetRawMatrix(r.dense)
	return &m
}

// fill computes out = K(X, Y) (Y = X and only j ≥ i when sym), block by
// block until ctx is done.
func fill(ctx context.Context, out blas64.General, k Kernel, X, Y mat.Matrix, sym bool, progress func(done, total int)) error {
	_, xsparse := X.(*sparse.CSR)
	ysparse := false
	if Y != nil {
		_, ysparse = Y.(*sparse.CSR)
	}
	if !xsparse && !ysparse {
		switch k.(type) {
		case RBF, Linear, Polynomial:
			return fillBLAS(ctx, out, k, X, Y, sym, progress)
		}
	}
	xs := newRowset(X)
	ys := xs
	if !sym {
		ys = newRowset(Y)
	}
	nb := (xs.n + blockRows - 1) / blockRows
	return parallel.ForBlocksProgress(ctx, nb, func() func(int) {
		p := newPairs(k, xs, ys)
		return func(b int) {
			i0, i1 := b*blockRows, min((b+1)*blockRows, xs.n)
			for i := i0; i < i1; i++ {
				p.setX(i)
				row := out.Data[i*out.Stride : i*out.Stride+out.Cols]
				j0 := 0
				if sym {
					j0 = i
				}
				for j := j0; j < len(row); j++ {
					row[j] = p.at(j)
				}
			}
		}
	}, blockProgress(progress, nb, blockRows, xs.n))
}

// transposedMin is the column count from which fillBLAS transposes Y.
const transposedMin = 1024

// fillBLAS is the dense path for kernels that are a function of inner
// products: one gemm per block of rows, then an element-wise map. For RBF
// both sides are first centred on the column means of Y (the distance does
// not change) so that ‖x‖² + ‖y‖² − 2xᵀy loses as little as possible to
// cancellation.
func fillBLAS(ctx context.Context, out blas64.General, k Kernel, X, Y mat.Matrix, sym bool, progress func(done, total int)) error {
	var xd, yd *mat.Dense
	var nx, ny []float64
	rbf, isRBF := k.(RBF)
	if isRBF {
		ref := X
		if !sym {
			ref = Y
		}
		mu := colMeans(newRowset(ref))
		xd = centredCopy(X, mu)
		nx = rowSqNorms(xd)
		if sym {
			yd, ny = xd, nx
		} else {
			yd = centredCopy(Y, mu)
			ny = rowSqNorms(yd)
		}
	} else {
		xd = newRowset(X).asDense()
		yd = xd
		if !sym {
			yd = newRowset(Y).asDense()
		}
	}
	n, _ := xd.Dims()
	m, d := yd.Dims()
	// From transposedMin columns on, Y transposed (d × m): the block
	// products are then fastmath.MulNN's register-blocked X·Yᵀ, each value
	// summed in registers and stored once (with Yᵀ as gonum's Trans operand
	// each product is a dot of length d, mostly call overhead for tabular
	// d; gonum's NoTrans × NoTrans gemm reloads and stores the block once
	// per feature). Below it the copy does not pay.
	var yt *mat.Dense
	if m >= transposedMin {
		yt = mat.NewDense(d, m, nil)
		yt.Copy(yd.T())
	}
	nb := (n + blockRows - 1) / blockRows
	return parallel.ForBlocksProgress(ctx, nb, func() func(int) {
		return func(b int) {
			i0, i1 := b*blockRows, min((b+1)*blockRows, n)
			c0 := 0
			if sym {
				c0 = i0
			}
			if yt != nil {
				xr, ytr := xd.RawMatrix(), yt.RawMatrix()
				fastmath.MulNN(out.Data[i0*out.Stride+c0:], out.Stride, xr.Data[i0*xr.Stride:], xr.Stride, ytr.Data[c0:], ytr.Stride, i1-i0, m-c0, d)
			} else {
				var o mat.Dense
				o.SetRawMatrix(blas64.General{Rows: i1 - i0, Cols: m - c0, Stride: out.Stride, Data: out.Data[i0*out.Stride+c0:]})
				o.Mul(xd.Slice(i0, i1, 0, d), yd.Slice(c0, m, 0, d).T())
			}
			for i := i0; i < i1; i++ {
				j0 := c0
				if sym {
					j0 = i
				}
				row := out.Data[i*out.Stride : i*out.Stride+m]
				switch k := k.(type) {
				case RBF:
					seg := row[j0:m]
					for j := range seg {
						seg[j] = -rbf.Gamma * fastmath.SqDist(nx[i], ny[j0+j], seg[j])
					}
					fastmath.Exp(seg, seg) // math.Exp to two ulps, four at a time

					if sym {
						row[i] = 1
					}
				case Polynomial:
					for j := j0; j < m; j++ {
						row[j] = k.of(row[j])
					}
				}
			}
		}
	}, blockProgress(progress, nb, blockRows, n))
}

func colMeans(r *rowset) []float64 {
	mu := make([]float64, r.d)
	if r.csr != nil {
		r.csr.DoNonZero(func(_, j int, v float64) { mu[j] += v })
	} else {
		for i := 0; i < r.n; i++ {
			for j, v := range r.denseRow(i) {
				mu[j] += v
			}
		}
	}
	for j := range mu {
		mu[j] /= float64(r.n)
	}
	return mu
}

func centredCopy(X mat.Matrix, mu []float64) *mat.Dense {
	c := mat.DenseCopyOf(X)
	n, _ := c.Dims()
	for i := 0; i < n; i++ {
		row := c.RawRowView(i)
		for j := range row {
			row[j] -= mu[j]
		}
	}
	return c
}

func rowSqNorms(x *mat.Dense) []float64 {
	n, _ := x.Dims()
	s := make([]float64, n)
	for i := range s {
		s[i] = fastmath.SumSquares(x.RawRowView(i)) // MulNN's arithmetic: 0 from a row to itself
	}
	return s
}

// pairs evaluates k(x_i, y_j) for any mix of dense and CSR rows; one per
// worker (it owns scratch rows).
type pairs struct {
	k          Kernel
	x, y       *rowset
	xrow       []float64 // current x_i, dense
	xi         []int     // current x_i's non-zeros when X is CSR
	xv         []float64
	xsq, xl1   float64 // ‖x_i‖², ‖x_i‖₁ of a dense x_i when Y is CSR
	xbuf, ybuf []float64
}

func newPairs(k Kernel, x, y *rowset) *pairs {
	k = canon(k)
	p := &pairs{k: k, x: x, y: y}
	// A CSR x_i is scattered into a dense row only when some pair needs it:
	// between two CSR rows every kernel of this package is a merge of
	// their non-zeros, so millions of columns cost nothing per worker.
	_, merge := EvalSparse(k, nil, nil, nil, nil)
	if x.csr != nil && (y.csr == nil || !merge) {
		p.xbuf = make([]float64, x.d)
	}
	if y.csr != nil {
		p.ybuf = make([]float64, y.d)
	}
	return p
}

// setX makes x_i the current left row.
func (p *pairs) setX(i int) {
	if p.x.csr == nil {
		p.xrow = p.x.denseRow(i)
		if p.y.csr != nil {
			p.xsq, p.xl1 = 0, 0
			for _, v := range p.xrow {
				p.xsq += v * v
				p.xl1 += math.Abs(v)
			}
		}
		return
	}
	if p.xbuf == nil {
		p.xi, p.xv = csr.Row(p.x.csr, i)
		return
	}
	for _, j := range p.xi { // clear the previous row's scatter
		p.xbuf[j] = 0
	}
	p.xi, p.xv = csr.Row(p.x.csr, i)
	for t, j := range p.xi {
		p.xbuf[j] = p.xv[t]
	}
	p.xrow = p.xbuf
}

// at returns k(x_i, y_j) for the current x_i.
func (p *pairs) at(j int) float64 {
	if p.y.csr == nil {
		y := p.y.denseRow(j)
		if p.x.csr != nil {
			if f, ok := dotKernel(p.k); ok {
				return f(sparseDenseDot(p.xi, p.xv, y))
			}
		}
		return p.k.Eval(p.xrow, y)
	}
	yi, yv := csr.Row(p.y.csr, j)
	if p.x.csr != nil {
		if v, ok := EvalSparse(p.k, p.xi, p.xv, yi, yv); ok {
			return v
		}
	} else if v, ok := p.denseSparse(yi, yv); ok {
		return v
	}
	if f, ok := dotKernel(p.k); ok {
		return f(sparseDenseDot(yi, yv, p.xrow))
	}
	for t, c := range yi {
		p.ybuf[c] = yv[t]
	}
	v := p.k.Eval(p.xrow, p.ybuf)
	for _, c := range yi {
		p.ybuf[c] = 0
	}
	return v
}

// denseSparse returns k(x_i, y_j) for a dense x_i and a CSR y_j in
// O(nnz(y_j)) for the distance kernels, from x_i's norms: ‖x − y‖² =
// ‖x‖² + Σ_{j ∈ nz(y)} ((x_j − y_j)² − x_j²), and the same with absolute
// values for ‖x − y‖₁. Only the terms where y is non-zero are recomputed,
// so there is no cancellation between ‖x‖² and ‖y‖² as in the
// ‖x‖² + ‖y‖² − 2⟨x, y⟩ expansion; the result is clamped at 0 against
// rounding in the subtraction of x's own terms.
func (p *pairs) denseSparse(yi []int, yv []float64) (float64, bool) {
	switch k := p.k.(type) {
	case RBF:
		return math.Exp(-k.Gamma * p.sqDist(yi, yv)), true
	case Matern:
		return k.of(p.sqDist(yi, yv)), true
	case Laplacian:
		d := p.xl1
		for t, c := range yi {
			x := p.xrow[c]
			d += math.Abs(x-yv[t]) - math.Abs(x)
		}
		return math.Exp(-k.Gamma * max(d, 0)), true
	}
	return 0, false
}

func (p *pairs) sqDist(yi []int, yv []float64) float64 {
	d := p.xsq
	for t, c := range yi {
		x := p.xrow[c]
		e := x - yv[t]
		d += e*e - x*x
	}
	return max(d, 0)
}

// dotKernel returns the map from ⟨x, y⟩ to k(x, y) for kernels that are a
// function of the inner product alone.
func dotKernel(k Kernel) (func(float64) float64, bool) {
	switch k := k.(type) {
	case Linear:
		return func(v float64) float64 { return v }, true
	case Polynomial:
		return k.of, true
	}
	return nil, false
}

func sparseDenseDot(ind []int, val, y []float64) float64 {
	var s float64
	for t, j := range ind {
		s += val[t] * y[j]
	}
	return s
}

// sparseSqDist returns ‖a − b‖² for two sparse rows with sorted indices.
func sparseSqDist(ai []int, av []float64, bi []int, bv []float64) float64 {
	return sparseSumDiff(ai, av, bi, bv, false)
}

// sparseL1Dist returns ‖a − b‖₁ for two sparse rows with sorted indices.
func sparseL1Dist(ai []int, av []float64, bi []int, bv []float64) float64 {
	return sparseSumDiff(ai, av, bi, bv, true)
}

// sparseSumDiff is sumDiff for two sparse rows with sorted indices,
// walking the union of their indices in order; a coordinate stored in one
// row only adds the term of its value (distTerm is even in d).
func sparseSumDiff(ai []int, av []float64, bi []int, bv []float64, l1 bool) float64 {
	var s float64
	p, q := 0, 0
	for p < len(ai) && q < len(bi) {
		switch {
		case ai[p] == bi[q]:
			s += distTerm(av[p]-bv[q], l1)
			p++
			q++
		case ai[p] < bi[q]:
			s += distTerm(av[p], l1)
			p++
		default:
			s += distTerm(bv[q], l1)
			q++
		}
	}
	for ; p < len(ai); p++ {
		s += distTerm(av[p], l1)
	}
	for ; q < len(bi); q++ {
		s += distTerm(bv[q], l1)
	}
	return s
}

// blockProgress turns a progress over rows into one over blocks of rows
// (nil stays nil).
func blockProgress(progress func(done, total int), nb, rows, n int) func(done, total int) {
	if progress == nil {
		return nil
	}
	return func(done, _ int) { progress(min(done*rows, n), n) }
}
