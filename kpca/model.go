package kpca

import (
	"context"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
)

// model is a fitted kernel PCA: what a fit builds and Score reads. It is
// never changed once built.
type model struct {
	kern      kernel.Kernel
	gamma     float64
	d         int
	vals      []float64 // the kept eigenvalues (descending)
	explained float64   // the share of the total variance they explain

	// The exact method.
	x       *mat.Dense // the training rows, n × d (saved)
	rowMean []float64  // (1/n) Σ_j k(x_i, x_j)
	grand   float64    // (1/n²) Σ_ij k(x_i, x_j)
	pt      *mat.Dense // the projection (U Λ^{-1/2})ᵀ, max(q, 1) × n
	corr    []float64  // per component c: S_c = Σ_j P_jc and μ_c = Σ_j rowMean_j·P_jc (see exactScores)

	// The Nyström method.
	ny    *randfeat.Nystrom
	zMean []float64  // the mean feature vector
	proj  *mat.Dense // the principal axes V, m × max(q, 1)

	// cross is the right-hand side of Score's cross kernel, prepared
	// once: the training rows (exact) or the landmarks (Nyström).
	cross *crossRows
}

// setExact completes an exact model from its training rows, row means,
// grand mean and projection: the centring terms of the projection and
// the training rows as the cross kernel reads them.
func (m *model) setExact(x *mat.Dense, rowMean []float64, grand float64, pt *mat.Dense) {
	m.x, m.rowMean, m.grand, m.pt = x, rowMean, grand, pt
	q := len(m.vals)
	m.corr = make([]float64, 2*max(q, 1))
	for c := 0; c < q; c++ {
		row := pt.RawRowView(c)
		m.corr[2*c] = floats.Sum(row)
		m.corr[2*c+1] = floats.Dot(rowMean, row)
	}
	m.cross = newCrossRows(m.kern, x)
}

// setNystrom completes a Nyström model from its map, mean feature vector
// and axes.
func (m *model) setNystrom(ny *randfeat.Nystrom, zMean []float64, proj *mat.Dense) {
	m.ny, m.zMean, m.proj = ny, zMean, proj
	m.cross = newCrossRows(m.kern, ny.Landmarks.(*mat.Dense))
}

// scoreWork bounds the multiply-adds of one block of Score (about 2²⁵,
// ten to twenty milliseconds of one core), so that Score hears its
// context within that; scoreValues bounds the values of a block's kernel
// matrix (4 MiB), which each worker holds.
const (
	scoreWork   = 1 << 25
	scoreValues = 1 << 19
)

// blockRows returns the rows of one Score block: at most 512 and at least
// 4, fewer as the training rows or landmarks (n), the features (d) and
// the components grow.
func (m *model) blockRows() int {
	n, _ := m.cross.dims()
	per := n * (m.d + max(len(m.vals), 1) + 1)
	if m.ny != nil {
		per += n * n // z = k_m(x)·K_mm^(−1/2)
	}
	return max(4, min(512, scoreValues/n, scoreWork/max(per, 1)))
}

// Score writes the squared feature-space reconstruction errors of the
// rows of X into dst (see the package documentation), a block of rows at
// a time on every core, returning ctx.Err() once ctx is done. Each row's
// score depends on that row alone: scoring a matrix whole or in chunks
// gives the same values, bit for bit.
func (m *model) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	r, _ := X.Dims()
	rows := m.blockRows()
	nb := (r + rows - 1) / rows
	return parallel.ForBlocksContext(ctx, nb, func() func(int) {
		w := m.newScorer(rows)
		return func(b int) {
			lo, hi := b*rows, min(r, (b+1)*rows)
			w.score(dst[lo:hi], denseRows(&w.xb, X, lo, hi))
		}
	})
}

// denseRows returns rows lo to hi of X as a dense matrix: a view of a
// dense X, else a copy into buf (a sparse X scattered from its
// non-zeros).
func denseRows(buf *mat.Dense, X mat.Matrix, lo, hi int) *mat.Dense {
	if d, ok := X.(*mat.Dense); ok {
		return d.Slice(lo, hi, 0, d.RawMatrix().Cols).(*mat.Dense)
	}
	_, c := X.Dims()
	buf.Reset()
	buf.ReuseAs(hi-lo, c)
	sp, _ := X.(*sparse.CSR)
	for i := lo; i < hi; i++ {
		row := buf.RawRowView(i - lo)
		if sp == nil {
			mat.Row(row, i, X)
			continue
		}
		clear(row)
		ind, val := csr.Row(sp, i)
		for k, j := range ind {
			row[j] = val[k]
		}
	}
	return buf
}

// scorer is one Score worker's scratch.
type scorer struct {
	m     *model
	xb    mat.Dense // the block's rows, when X is not dense
	cs    crossScratch
	kx    []float64 // the block's kernel matrix against the training rows or landmarks
	z     []float64 // exact: the block's projections of a row; Nyström: its features, rows × m
	pz    []float64 // Nyström: the projections, rows × max(q, 1)
	kxx   []float64
	norms []float64 // Nyström: ‖z‖² per row
}

// newScorer returns a worker's scratch for blocks of up to rows rows.
func (m *model) newScorer(rows int) *scorer {
	n, _ := m.cross.dims()
	w := &scorer{m: m, kx: make([]float64, rows*n), kxx: make([]float64, rows)}
	if m.ny != nil {
		_, c := m.proj.Dims()
		w.z, w.pz, w.norms = make([]float64, rows*n), make([]float64, rows*c), make([]float64, rows)
	} else {
		w.z = make([]float64, len(m.vals)+3)
	}
	return w
}

// score writes the scores of the rows of xb into dst.
func (w *scorer) score(dst []float64, xb *mat.Dense) {
	m := w.m
	r, _ := xb.Dims()
	n, _ := m.cross.dims()
	kx := w.kx[:r*n]
	m.cross.into(kx, xb, &w.cs)
	kxx := selfKernel(w.kxx[:r], m.kern, xb)
	if m.ny == nil {
		m.exactScores(dst, kxx, kx, w.z)
		return
	}
	z := w.z[:r*n]
	m.features(z, kx, r)
	zn := w.norms[:r]
	for i := range zn {
		zn[i] = fastmath.SumSquares(z[i*n : (i+1)*n])
	}
	m.nystromScores(dst, kxx, zn, z, w.pz)
}

// features sets z (r × m) to the Nyström features k_m(x)·K_mm^(−1/2) of
// the rows whose kernel matrix against the landmarks is kx (r × m), as
// randfeat's Nystrom.Transform does (fastmath.MulNN, whose every value is
// the same sum whatever the blocking).
func (m *model) features(z, kx []float64, r int) {
	nm := m.ny.Norm.RawMatrix()
	k := nm.Rows
	fastmath.MulNN(z, k, kx, k, nm.Data, nm.Stride, r, k, k)
}

// nystromScores sets dst[i] = k(x, x) − ‖z‖² + ‖z − z̄‖² − ‖Vᵀ(z − z̄)‖²
// for the features z (r × m) of r rows, with zn[i] = ‖z_i‖²: z is
// centred in place and pz (at least r × max(q, 1)) receives the
// projections.
func (m *model) nystromScores(dst, kxx, zn, z, pz []float64) {
	k, _ := m.proj.Dims()
	for i := range dst {
		floats.Sub(z[i*k:(i+1)*k], m.zMean)
	}
	m.centredScores(dst, kxx, zn, z, pz)
}

// centredScores is nystromScores for features zc already centred.
func (m *model) centredScores(dst, kxx, zn, zc, pz []float64) {
	k, c := m.proj.Dims()
	r := len(dst)
	pr := m.proj.RawMatrix()
	fastmath.MulNN(pz, c, zc, k, pr.Data, pr.Stride, r, c, k)
	q := len(m.vals)
	for i := 0; i < r; i++ {
		zcn := fastmath.SumSquares(zc[i*k : (i+1)*k])
		pn := fastmath.SumSquares(pz[i*c : i*c+q])
		dst[i] = (kxx[i] - zn[i]) + zcn - pn
	}
}

// exactScores sets dst[i] = k̃(x_i, x_i) − Σ_c z_ic² for the rows of the
// uncentred kernel block kx (rows × n) without centring it: with r_i its
// row mean, the centred row is kx_ij + grand − r_i − rowMean_j, so
// z_ic = kx_i·P_c + (grand − r_i)·S_c − μ_c (corr), and k̃(x_i, x_i) =
// k(x_i, x_i) − 2r_i + grand. One pass for r_i and q dot products per row
// (fastmath.Dot4, four components at a time); z (q + 3 values) is
// scratch.
func (m *model) exactScores(dst, kxx, kx, z []float64) {
	n := len(m.rowMean)
	q := len(m.vals)
	pt, corr := m.pt, m.corr
	for i := range dst {
		row := kx[i*n : (i+1)*n]
		var rm float64
		for _, v := range row {
			rm += v
		}
		rm /= float64(n)
		c := 0
		for ; c+4 <= q; c += 4 {
			z[c], z[c+1], z[c+2], z[c+3] = fastmath.Dot4(row, pt.RawRowView(c), pt.RawRowView(c+1), pt.RawRowView(c+2), pt.RawRowView(c+3))
		}
		for ; c < q; c++ {
			z[c] = floats.Dot(row, pt.RawRowView(c))
		}
		s := kxx[i] - 2*rm + m.grand
		for c := 0; c < q; c++ {
			v := z[c] + (m.grand-rm)*corr[2*c] - corr[2*c+1]
			s -= v * v
		}
		dst[i] = s
	}
}

// selfKernel sets out[i] = k(x_i, x_i) for the rows of X and returns it.
func selfKernel(out []float64, k kernel.Kernel, X *mat.Dense) []float64 {
	switch k.(type) {
	case kernel.RBF, kernel.Laplacian:
		for i := range out {
			out[i] = 1
		}
		return out
	}
	for i := range out {
		row := X.RawRowView(i)
		out[i] = k.Eval(row, row)
	}
	return out
}

// crossTransposed is the row count of Y from which the cross kernel
// multiplies by Yᵀ stored row-major (fastmath.MulNN) instead of by gonum's
// transposed product: kernel.Cross's threshold (transposedMin), so that
// the two give the same values.
const crossTransposed = 1024

// crossRows are the rows Y of a cross kernel K(X, Y) that stays fixed
// while X varies (an exact model's training rows, a Nyström model's
// landmarks), prepared once as kernel.Cross prepares them at every call:
// for the rbf kernel centred on their column means, with their squared
// norms, and from crossTransposed rows on transposed. into then costs
// only the product and the kernel's map, and gives kernel.Cross's values
// bit for bit (TestCrossRowsEqualsCross): each row's values are the same
// sums whatever the block it is in.
type crossRows struct {
	kern  kernel.Kernel
	y     *mat.Dense // the rows, as given (other kernels: kernel.Cross reads them)
	dot   bool       // rbf, linear and poly: a product of the rows, then a map
	rbf   bool
	mu    []float64  // rbf: the column means of y
	yc    *mat.Dense // below crossTransposed rows: y (centred for rbf), n × d
	yt    *mat.Dense // from crossTransposed rows: y (centred for rbf) transposed, d × n
	norms []float64  // rbf: the squared norms of the centred rows
}

// newCrossRows prepares the rows y for the cross kernels of k against
// them; y must not change afterwards.
func newCrossRows(k kernel.Kernel, y *mat.Dense) *crossRows {
	c := &crossRows{kern: k, y: y}
	switch k.(type) {
	case kernel.RBF:
		c.dot, c.rbf = true, true
	case kernel.Linear, kernel.Polynomial:
		c.dot = true
	default:
		return c
	}
	n, d := y.Dims()
	src := y
	if c.rbf {
		c.mu = make([]float64, d)
		// kernel.Cross's column means, bit for bit.
		for i := 0; i < n; i++ {
			for j, v := range y.RawRowView(i) {
				c.mu[j] += v
			}
		}
		for j := range c.mu {
			c.mu[j] /= float64(n)
		}
		if n < crossTransposed {
			src = mat.NewDense(n, d, nil)
		}
		c.norms = make([]float64, n)
	}
	if n >= crossTransposed {
		c.yt = mat.NewDense(d, n, nil)
	}
	row := make([]float64, d)
	for i := 0; i < n; i++ {
		v := y.RawRowView(i)
		if c.rbf {
			floats.SubTo(row, v, c.mu)
			c.norms[i] = fastmath.SumSquares(row)
			v = row
		}
		if c.yt != nil {
			for j, x := range v {
				c.yt.Set(j, i, x)
			}
		} else if src != y {
			copy(src.RawRowView(i), v)
		}
	}
	if c.yt == nil {
		c.yc = src
	}
	return c
}

// dims returns the number and the width of the rows.
func (c *crossRows) dims() (int, int) { return c.y.Dims() }

// crossBytes returns the bytes newCrossRows allocates for n rows of d
// columns and the kernel kind: a copy of the rows (the rbf kernel's
// centred copy, or the transposed one), the column means and the norms.
func crossBytes(kind string, n, d int) float64 {
	N, D := float64(n), float64(d)
	switch kind {
	case "", "rbf":
		return 8 * (N*D + D + N + D)
	case "linear", "poly":
		if n >= crossTransposed {
			return 8 * N * D
		}
	}
	return 0
}

// crossScratch is one worker's scratch for crossRows.into.
type crossScratch struct {
	xc    []float64 // rbf: the block's rows centred
	norms []float64
	one   [1]float64
}

// crossBlock is the row block of the product, kernel.Cross's (blockRows):
// gonum's product computes each value as one sum only while the block
// has at most 64 rows.
const crossBlock = 64

// into sets dst (rows × n, row-major) to the kernel matrix between the
// rows of X (rows × d) and the prepared rows.
func (c *crossRows) into(dst []float64, X *mat.Dense, s *crossScratch) {
	r, d := X.Dims()
	n, _ := c.dims()
	if !c.dot {
		var out mat.Dense
		out.SetRawMatrix(blas64.General{Rows: r, Cols: n, Stride: n, Data: dst[:r*n]})
		kernel.Cross(&out, c.kern, X, c.y)
		return
	}
	xr := X.RawMatrix()
	xd, lda := xr.Data, xr.Stride
	var norms []float64
	if c.rbf {
		if cap(s.xc) < r*d {
			s.xc, s.norms = make([]float64, r*d), make([]float64, r)
		}
		xd, lda, norms = s.xc[:r*d], d, s.norms[:r]
		for i := 0; i < r; i++ {
			row := xd[i*d : (i+1)*d]
			floats.SubTo(row, X.RawRowView(i), c.mu)
			norms[i] = fastmath.SumSquares(row)
		}
	}
	for i0 := 0; i0 < r; i0 += crossBlock {
		i1 := min(i0+crossBlock, r)
		if c.yt != nil {
			yr := c.yt.RawMatrix()
			fastmath.MulNN(dst[i0*n:], n, xd[i0*lda:], lda, yr.Data, yr.Stride, i1-i0, n, d)
		} else {
			var a, o mat.Dense
			a.SetRawMatrix(blas64.General{Rows: i1 - i0, Cols: d, Stride: lda, Data: xd[i0*lda : (i1-1)*lda+d]})
			o.SetRawMatrix(blas64.General{Rows: i1 - i0, Cols: n, Stride: n, Data: dst[i0*n : i1*n]})
			o.Mul(&a, c.yc.T())
		}
		for i := i0; i < i1; i++ {
			seg := dst[i*n : (i+1)*n]
			switch k := c.kern.(type) {
			case kernel.RBF:
				for j := range seg {
					seg[j] = -k.Gamma * fastmath.SqDist(norms[i], c.norms[j], seg[j])
				}
				fastmath.Exp(seg, seg)
			case kernel.Polynomial:
				// Eval of the one-value rows (⟨x, y⟩) and (1) is the
				// kernel's map of the inner product, as kernel.Cross
				// applies it: their inner product is ⟨x, y⟩ exactly.
				for j, v := range seg {
					s.one[0] = v
					seg[j] = k.Eval(s.one[:], unit[:])
				}
			}
		}
	}
}

// unit is the one-value row (1).
var unit = [1]float64{1}
