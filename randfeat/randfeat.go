package randfeat

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Map is an explicit feature map z: R^InputDim → R^Dim whose inner products
// approximate a kernel: ⟨z(x), z(y)⟩ ≈ k(x, y).
type Map interface {
	InputDim() int
	Dim() int
	// Transform sets dst to z(X), one feature row per row of X. dst must be
	// n × Dim, or empty (then it is allocated). X may be dense, a view, or a
	// *sparse.CSR, which is never densified.
	Transform(dst *mat.Dense, X mat.Matrix)
}

// DotMap is a Map that also forms the inner products ⟨z(x_i), w⟩ of the
// rows of X with a vector w of length Dim without the caller reading the
// features back: dst[i] = ⟨z(x_i), w⟩, with z (rows × Dim, as Transform's
// dst) as scratch that holds z(X) afterwards. It runs on the calling
// goroutine (the caller splits the rows between workers).
type DotMap interface {
	Map
	TransformDot(dst []float64, X mat.Matrix, w []float64, z *mat.Dense)
}

var _ DotMap = (*Fourier)(nil)

// RowMap is a Map that also maps a single row without allocating: dst is
// resliced to Dim when its capacity allows and returned.
type RowMap interface {
	Map
	TransformRow(dst, x []float64) []float64
}

var (
	_ RowMap = (*Fourier)(nil)
	_ RowMap = (*Orthogonal)(nil)
	_ RowMap = (*Nystrom)(nil)
)

// Fourier is the random Fourier feature map of Rahimi and Recht:
// z(x) = √(2/D) cos(Wx + b), W's rows drawn from the kernel's spectral
// distribution and b ~ U[0, 2π).
//
// W and B must not be changed once the map has been used: Transform keeps a
// transposed copy of W.
type Fourier struct {
	W *mat.Dense // D × d frequencies, one per row
	B []float64  // D phases

	wtOnce sync.Once
	wt     mat.Dense // Wᵀ, d × D, made on first use
}

// transposed returns Wᵀ (d × D, row-major), computed once. With it the
// product X·Wᵀ is d row updates (axpys of length D) per input row instead
// of D dot products of length d: much faster for the small d of tabular
// data, and the CSR path costs one axpy per stored entry.
func (f *Fourier) transposed() *mat.Dense {
	f.wtOnce.Do(func() { transposeInto(&f.wt, f.W) })
	return &f.wt
}

// transposeTile is the side of the square tiles transposeInto copies: two
// tiles of 32 × 32 float64 (16 KiB) stay in a core's L1 cache.
const transposeTile = 32

// transposeInto sets dst to the transpose of a, a tile at a time, so that
// the reads of a's columns and the writes of dst's rows both stay in
// cache: Dense.CloneFrom(a.T()) copies a column at a time, a strided walk
// that took 2.7 of the 7.9 s of an r1svm fit of 3 rows × 10⁵ columns
// (1,024 × 10⁵ frequencies) and grew faster than the map's size.
func transposeInto(dst, a *mat.Dense) {
	r, c := a.Dims()
	dst.ReuseAs(c, r)
	src, out := a.RawMatrix(), dst.RawMatrix()
	for i0 := 0; i0 < r; i0 += transposeTile {
		i1 := min(r, i0+transposeTile)
		for j0 := 0; j0 < c; j0 += transposeTile {
			j1 := min(c, j0+transposeTile)
			for i := i0; i < i1; i++ {
				row := src.Data[i*src.Stride+j0 : i*src.Stride+j1]
				for k, v := range row {
					out.Data[(j0+k)*out.Stride+i] = v
				}
			}
		}
	}
}

// NewFourier draws a D-feature map for d-dimensional inputs from src. For
// each feature in turn it draws the frequency (k.SampleFrequency) and then
// the phase, so the same source state gives the same map.
func NewFourier(k kernel.ShiftInvariant, d, D int, src rand.Source) *Fourier {
	if d < 1 || D < 1 {
		panic("randfeat: need d ≥ 1 and D ≥ 1")
	}
	rng := rand.New(src)
	w := mat.NewDense(D, d, nil)
	b := make([]float64, D)
	for i := 0; i < D; i++ {
		k.SampleFrequency(w.RawRowView(i), rng)
		b[i] = 2 * math.Pi * rng.Float64()
	}
	return &Fourier{W: w, B: b}
}

// InputDim returns d.
func (f *Fourier) InputDim() int { _, c := f.W.Dims(); return c }

// Dim returns D.
func (f *Fourier) Dim() int { return len(f.B) }

// transformRows is the number of rows one block of Transform covers.
const transformRows = 256

// Transform sets dst to z(X). Blocks of rows are mapped by
// runtime.GOMAXPROCS(0) workers: for dense X each block is a few products
// X_b·Wᵀ of eight rows (fastmath.MulNN), each followed by its cosines; a
// *sparse.CSR X goes through csr.MulDense block by block and is
// never densified; any other mat.Matrix is copied a block at a time.
func (f *Fourier) Transform(dst *mat.Dense, X mat.Matrix) {
	X = csr.Input(X)

	c := f.InputDim()
	D := f.Dim()
	n := sizeDst(dst, X, c, D)
	if n == 0 {
		return
	}
	scale := math.Sqrt(2 / float64(D))
	wt := f.transposed()
	parallel.ForBlocks((n+transformRows-1)/transformRows, func() func(int) {
		var buf *mat.Dense
		return func(blk int) {
			i0, i1 := blk*transformRows, min((blk+1)*transformRows, n)
			out := dst.Slice(i0, i1, 0, D).(*mat.Dense)
			if s, ok := X.(*sparse.CSR); ok {
				csr.MulDense(out, csr.SliceRows(s, i0, i1), wt)
			} else {
				// A few rows at a time: their projections from the
				// register-blocked product, then their cosines while
				// the rows are still in the cache.
				f.projectRows(out, rowBlock(X, i0, i1, &buf), func(i int, row []float64) {
					if cosRow(row, f.B, scale) {
						farRow(row)
					}
				})
				return
			}
			for i := 0; i < i1-i0; i++ {
				if cosRow(out.RawRowView(i), f.B, scale) {
					farRow(out.RawRowView(i))
				}
			}
		}
	})
}

// TransformDot sets dst[i] = ⟨z(x_i), w⟩ for the rows of X (see DotMap):
// for dense X eight rows at a time, their projections from
// fastmath.MulNN and then each row's cosines and its inner product with w
// in one pass (fastmath.CosAddDot); other X go through Transform.
func (f *Fourier) TransformDot(dst []float64, X mat.Matrix, w []float64, z *mat.Dense) {
	X = csr.Input(X)
	c, D := f.InputDim(), f.Dim()
	n := sizeDst(z, X, c, D)
	if len(dst) != n || len(w) != D {
		panic("randfeat: TransformDot lengths do not fit")
	}
	if n == 0 {
		return
	}
	rm, dense := X.(mat.RawMatrixer)
	if _, sp := X.(*sparse.CSR); sp || !dense {
		f.Transform(z, X)
		for i := range dst {
			dst[i] = floats.Dot(z.RawRowView(i), w)
		}
		return
	}
	scale := math.Sqrt(2 / float64(D))
	var xd mat.Dense
	xd.SetRawMatrix(rm.RawMatrix())
	f.projectRows(z, &xd, func(i int, row []float64) {
		s, slow := fastmath.CosAddDot(row, f.B, scale, w)
		if slow {
			farRow(row)
			s = floats.Dot(row, w)
		}
		dst[i] = s
	})
}

// projectRows sets the rows of out to the projections Wx of the rows of
// the dense x, cosRows rows at a time (fastmath.MulNN), and hands each
// block's rows to finish (row index, row of out) while they are still in
// the cache.
func (f *Fourier) projectRows(out, x *mat.Dense, finish func(i int, row []float64)) {
	n, c := x.Dims()
	D := f.Dim()
	wt, xr, o := f.transposed().RawMatrix(), x.RawMatrix(), out.RawMatrix()
	for r0 := 0; r0 < n; r0 += cosRows {
		r1 := min(r0+cosRows, n)
		fastmath.MulNN(o.Data[r0*o.Stride:], o.Stride, xr.Data[r0*xr.Stride:], xr.Stride, wt.Data, wt.Stride, r1-r0, D, c)
		for i := r0; i < r1; i++ {
			finish(i, o.Data[i*o.Stride:i*o.Stride+D])
		}
	}
}

// TransformRow returns z(x) in dst, resliced to D when cap(dst) ≥ D (no
// allocation) and newly allocated otherwise. It panics if len(x) ≠ d.
func (f *Fourier) TransformRow(dst, x []float64) []float64 {
	d, D := f.InputDim(), f.Dim()
	if len(x) != d {
		panic("randfeat: TransformRow input has the wrong length")
	}
	if cap(dst) >= D {
		dst = dst[:D]
	} else {
		dst = make([]float64, D)
	}
	if d <= fusedMaxInput {
		w := f.transposed().RawMatrix()
		if fastmath.CosAffine(dst, x, w.Data, w.Stride, f.B, math.Sqrt(2/float64(D))) {
			farRow(dst)
		}
		return dst
	}
	blas64.Gemv(blas.NoTrans, 1, f.W.RawMatrix(), blas64.Vector{N: d, Inc: 1, Data: x},
		0, blas64.Vector{N: D, Inc: 1, Data: dst})
	if cosRow(dst, f.B, math.Sqrt(2/float64(D))) {
		farRow(dst)
	}
	return dst
}

// farRow handles a row whose projections ωᵀx leave the float64 range (a
// test row some 1e300 bandwidths from the data): their cosines are NaN.
// Such a row is infinitely far from every training row, where every
// shift-invariant kernel is 0, so its features are set to 0: its inner
// products with every embedding are exactly the kernel's limit. Rows of
// ordinary size pass unchanged; it runs only on rows where the cosine
// kernel reported an argument beyond its range (the only way to a NaN).
func farRow(row []float64) {
	for _, v := range row {
		if v != v { // NaN
			clear(row)
			return
		}
	}
}

// cosRows is the number of rows whose projections Transform forms
// (fastmath.MulNN) before taking their cosines: 8 rows of D = 2,000
// features are 128 kB, still in the L2 cache for the cosine pass.
const cosRows = 8

// fusedMaxInput is the largest input dimension d for which TransformRow
// uses the fused product-and-cosine kernel (fastmath.CosAffine), which
// reads all d rows of Wᵀ for every block of four features: cheap while d·D
// values stay in cache, and beaten by a gemv beyond that.
const fusedMaxInput = 32

// cosRow sets row[j] = scale·cos(row[j] + b[j]). The cosines are most of
// the cost of every random Fourier feature map; internal/fastmath evaluates
// them four at a time (AVX2/FMA) to within 2⁻⁵⁰ of math.Cos. It reports
// whether some argument was beyond the fast path's range (see farRow).
func cosRow(row, b []float64, scale float64) (slow bool) {
	return fastmath.CosAdd(row, b[:len(row)], scale)
}

// Orthogonal is the orthogonal random feature map of Yu et al. (2016) for an
// isotropic kernel: the same z(x) = √(2/D) cos(Wx + b) as Fourier, but W is
// a stack of ⌈D/d⌉ independent d × d blocks S·Q, Q a uniformly (Haar)
// random orthogonal matrix and S a diagonal of radii drawn from the
// kernel's spectral distribution; the last block is cut to D rows. Within a
// block the frequencies are exactly orthogonal, which lowers the variance of
// the kernel estimate.
type Orthogonal struct {
	Fourier
}

// NewOrthogonal draws a D-feature orthogonal map for d-dimensional inputs
// from src: for each block a d × d standard normal matrix G (row by row),
// its QR factorisation G = QR with the columns of Q multiplied by sign(R_jj)
// (which makes Q Haar distributed), then one radius per kept row
// (k.SampleRadius); after all blocks, the D phases.
func NewOrthogonal(k kernel.Isotropic, d, D int, src rand.Source) *Orthogonal {
	if d < 1 || D < 1 {
		panic("randfeat: need d ≥ 1 and D ≥ 1")
	}
	rng := rand.New(src)
	w := mat.NewDense(D, d, nil)
	g := mat.NewDense(d, d, nil)
	var qr mat.QR
	var q, r mat.Dense
	sgn := make([]float64, d)
	for r0 := 0; r0 < D; r0 += d {
		raw := g.RawMatrix()
		for i := range raw.Data[:d*d] {
			raw.Data[i] = rng.NormFloat64()
		}
		qr.Factorize(g)
		qr.QTo(&q)
		qr.RTo(&r)
		for j := range sgn {
			sgn[j] = 1
			if r.At(j, j) < 0 {
				sgn[j] = -1
			}
		}
		for i := 0; i < min(d, D-r0); i++ {
			s := k.SampleRadius(d, rng)
			row := w.RawRowView(r0 + i)
			for j := range row {
				row[j] = s * sgn[j] * q.At(i, j)
			}
		}
	}
	b := make([]float64, D)
	for i := range b {
		b[i] = 2 * math.Pi * rng.Float64()
	}
	return &Orthogonal{Fourier{W: w, B: b}}
}

// sizeDst checks a Transform's X and dst against a map from in to out
// dimensions and returns X's row count: X must have in columns, an empty dst
// is resized to rows × out (left empty when X has no rows) and any other must
// be rows × out. A mismatch panics with mat.ErrShape.
func sizeDst(dst *mat.Dense, X mat.Matrix, in, out int) int {
	r, c := X.Dims()
	if c != in {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		if r == 0 {
			return 0
		}
		dst.ReuseAs(r, out)
	}
	if rr, cc := dst.Dims(); rr != r || cc != out {
		panic(mat.ErrShape)
	}
	return r
}

// rowBlock returns rows [i0, i1) of a non-CSR X as a *mat.Dense: a view for
// raw (dense) matrices, otherwise a copy into *buf (reused).
func rowBlock(X mat.Matrix, i0, i1 int, buf **mat.Dense) *mat.Dense {
	_, c := X.Dims()
	if rm, ok := X.(mat.RawMatrixer); ok {
		raw := rm.RawMatrix()
		var v mat.Dense
		v.SetRawMatrix(blas64.General{Rows: i1 - i0, Cols: c, Stride: raw.Stride, Data: raw.Data[i0*raw.Stride:]})
		return &v
	}
	if *buf == nil {
		*buf = mat.NewDense(i1-i0, c, nil)
	}
	b := *buf
	if r, _ := b.Dims(); r < i1-i0 {
		b = mat.NewDense(i1-i0, c, nil)
		*buf = b
	}
	b = b.Slice(0, i1-i0, 0, c).(*mat.Dense)
	for i := i0; i < i1; i++ {
		row := b.RawRowView(i - i0)
		for j := range row {
			row[j] = X.At(i, j)
		}
	}
	return b
}
