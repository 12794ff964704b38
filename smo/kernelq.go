package smo

import (
	"context"
	"math"
	"runtime"
	"sync"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// KernelMatrix is the Matrix Q_ij = Scale · y_i · y_j · k(x_i, x_j) over the
// rows x_i of a data matrix. Columns longer than a few hundred entries are
// computed by runtime.GOMAXPROCS(0) goroutines over blocks of rows. The RBF
// kernel takes a fast path, exp(−γ(‖x_i‖² + ‖x_j‖² − 2x_iᵀx_j)) with the
// squared norms computed once, as LIBSVM does. Sparse rows (a *sparse.CSR
// X) are kept as compressed rows and every kernel value is a merge of two
// rows' non-zeros, so the matrix never costs rows × columns.
type KernelMatrix struct {
	k       kernel.Kernel
	rows    rowStore
	y       []int8
	scale   float64
	diag    []float64
	gamma   float64
	rbf     bool
	scatter bool // sparse RBF rows: a column scatters its row (scatters)
	workers int
	xt      []float64 // dense RBF: the rows transposed, d × n
}

var _ Matrix = (*KernelMatrix)(nil)

// parallelMin is the column length from which Column splits the work.
const parallelMin = 512

// NewKernelMatrix returns the matrix for kernel k over the rows of X, with
// labels y (nil means all +1) and a positive factor scale. X is copied
// (its non-zeros only when it is sparse).
func NewKernelMatrix(k kernel.Kernel, X mat.Matrix, y []int8, scale float64) *KernelMatrix {
	X = csr.Input(X)

	n, _ := X.Dims()
	if y != nil && len(y) != n {
		panic("smo: label length differs from the row count")
	}
	m := &KernelMatrix{k: k, rows: newRowStore(X, nil), y: y, scale: scale, workers: runtime.GOMAXPROCS(0)}
	if r, ok := k.(kernel.RBF); ok {
		m.rbf, m.gamma = true, r.Gamma
		m.scatter = m.rows.ptr != nil && scatters(m.rows.d, len(m.rows.val), n)
		if m.rows.ptr == nil {
			d := m.rows.d
			m.xt = make([]float64, d*n)
			for i := 0; i < n; i++ {
				for k, v := range m.rows.dense[i*d : i*d+d] {
					m.xt[k*n+i] = v
				}
			}
		}
	}
	m.diag = make([]float64, n)
	var a row
	for i := range m.diag {
		if m.rbf {
			m.diag[i] = scale // k(x, x) = 1 exactly
			continue
		}
		a.setStored(&m.rows, i)
		m.diag[i] = scale * eval(k, false, 0, &a, &a, m.rows.d)
	}
	return m
}

// Len returns the number of rows.
func (m *KernelMatrix) Len() int { return len(m.diag) }

// entryCost is the solver's work units of one entry (see ctxEvery): the
// values the kernel value reads (a row's width, or the non-zeros of the
// two sparse rows it merges) and the exponential.
func (m *KernelMatrix) entryCost() int64 {
	if m.rows.ptr != nil {
		return 2*int64(len(m.rows.val))/int64(max(1, m.Len())) + 4
	}
	return int64(m.rows.d) + 4
}

// Diag returns Scale · k(x_i, x_i).
func (m *KernelMatrix) Diag(i int) float64 { return m.diag[i] }

// Column sets dst[i] = Q_ij for every i in rows; for the dense RBF matrix
// it sets the whole column (columnRBF).
func (m *KernelMatrix) Column(dst []float32, j int, rows []int) {
	if m.xt != nil {
		m.columnRBF(dst, j)
		return
	}
	n := len(rows)
	w := m.workers
	if w < 2 || n < parallelMin {
		m.fill(dst, j, rows)
		return
	}
	if max := n / (parallelMin / 2); w > max {
		w = max
	}
	var wg sync.WaitGroup
	chunk := (n + w - 1) / w
	for lo := chunk; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			m.fill(dst, j, rows[lo:hi])
		}(lo, hi)
	}
	m.fill(dst, j, rows[:chunk])
	wg.Wait()
}

func (m *KernelMatrix) fill(dst []float32, j int, rows []int) {
	var a, b row
	b.setStored(&m.rows, j)
	if m.scatter {
		defer b.scatter(m.rows.d)()
	}
	for _, i := range rows {
		a.setStored(&m.rows, i)
		dst[i] = float32(m.scale * eval(m.k, m.rbf, -m.gamma, &a, &b, m.rows.d))
	}
	if m.y != nil {
		yj := m.y[j]
		for _, i := range rows {
			if m.y[i] != yj {
				dst[i] = -dst[i]
			}
		}
	}
}

// columnRBF sets the whole dense RBF column j, every row and not only
// the active ones (the others are don't-care entries of the cache, and
// vector work over all n beats a scalar gather over a subset): the cross
// products x_jᵀx_i for contiguous row ranges as axpys along the transposed
// rows, then scale·exp(−γ(‖x_i‖² + ‖x_j‖² − 2x_jᵀx_i)) with the exponents
// four at a time. The ranges go to the workers when n is large.
func (m *KernelMatrix) columnRBF(dst []float32, j int) {
	n := len(m.diag)
	w := m.workers
	if w < 2 || n < rbfParallelMin {
		m.rbfRange(dst, j, 0, n)
		return
	}
	w = min(w, n/(rbfParallelMin/2))
	var wg sync.WaitGroup
	chunk := (n + w - 1) / w
	for lo := chunk; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			m.rbfRange(dst, j, lo, hi)
		}(lo, min(lo+chunk, n))
	}
	m.rbfRange(dst, j, 0, chunk)
	wg.Wait()
}

// rbfParallelMin is the column length from which columnRBF splits the
// work: a vectorised column of 7,000 rows takes about 20 µs, which the
// goroutine hand-off would eat.
const rbfParallelMin = 1 << 14

// rbfRange sets dst[i], lo ≤ i < hi, to Q_ij for the dense RBF matrix.
// The cross products are summed k = 0…d−1 from zero, one product and one
// addition at a time (crossRange), the order forPairs uses, so the two
// give the same values to the last bit.
func (m *KernelMatrix) rbfRange(dst []float32, j, lo, hi int) {
	d := m.rows.d
	bp := argPool.Get().(*[]float64)
	if cap(*bp) < hi-lo {
		*bp = make([]float64, hi-lo)
	}
	g := (*bp)[:hi-lo]
	var part []float64
	if d > crossDepth {
		pp := argPool.Get().(*[]float64)
		defer argPool.Put(pp)
		if cap(*pp) < hi-lo {
			*pp = make([]float64, hi-lo)
		}
		part = (*pp)[:hi-lo]
	}
	m.crossRange(g, part, m.rows.dense[j*d:j*d+d], lo, hi)
	fastmath.GaussArg(g, g, m.rows.sq[lo:hi], m.rows.sq[j], -m.gamma)
	fastmath.Exp(g, g)
	out, s := dst[lo:hi], m.scale
	if m.y == nil {
		fastmath.ScaleTo32(out, g, s)
	} else {
		yj, y := m.y[j], m.y[lo:hi]
		for k, v := range g {
			f := float32(s * v)
			if y[k] != yj {
				f = -f
			}
			out[k] = f
		}
	}
	argPool.Put(bp)
}

// crossRange sets g[i−lo] = xᵀx_i for lo ≤ i < hi: the one-row product
// xᵀ·Xᵀ[:, lo:hi] along the transposed rows (crossProducts; part holds
// hi − lo values when the rows are wider than crossDepth).
func (m *KernelMatrix) crossRange(g, part, x []float64, lo, hi int) {
	n := len(m.diag)
	crossProducts(nil, g, hi-lo, part, x, len(x), m.xt[lo:], n, 1, hi-lo, len(x))
}

// crossDepth is the number of coordinates crossProducts sums in one
// product: a panel of that many rows of the transposed data, by the
// columns MulNNSeq takes at a time, stays in the L2 cache. Rows up to
// that width (the LIBSVM parity data sets have 6 to 36) are summed in one
// product, in order, as LIBSVM's dot.
const crossDepth = 256

// crossProducts sets c[r·ldc + j] = Σ_l a[r·lda + l]·b[l·ldb + j] for
// r < m, j < n: the cross products of the kernel matrix, with
// fastmath.MulNNSeq's arithmetic (a rounded product and a rounded sum per
// coordinate, from zero, in order) over crossDepth coordinates at a time,
// the partial sums added in coordinate order; part holds m rows of stride
// ldc when k > crossDepth. A value depends on its two rows and k only,
// not on m, n or the strides, so the columns and the symmetric pass
// (forPairs) agree to the last bit. Over 20,000 coordinates in one
// product each pass over the transposed rows went to memory (75 Mflop/s,
// a kernel column of 400 rows in tens of milliseconds). ctx, when not nil,
// is checked between the coordinate ranges; crossProducts then reports
// false, leaving c partial.
func crossProducts(ctx context.Context, c []float64, ldc int, part, a []float64, lda int, b []float64, ldb int, m, n, k int) bool {
	fastmath.MulNNSeq(c, ldc, a, lda, b, ldb, m, n, min(k, crossDepth))
	for l0 := crossDepth; l0 < k; l0 += crossDepth {
		if ctx != nil && ctx.Err() != nil {
			return false
		}
		fastmath.MulNNSeq(part, ldc, a[l0:], lda, b[l0*ldb:], ldb, m, n, min(k, l0+crossDepth)-l0)
		for r := 0; r < m; r++ {
			cr, pr := c[r*ldc:r*ldc+n], part[r*ldc:r*ldc+n]
			for j, v := range pr {
				cr[j] += v
			}
		}
	}
	return true
}

// argPool holds fillRBF's exponent buffers (Column runs on several
// goroutines, thousands of times per solve).
var argPool = sync.Pool{New: func() any { return new([]float64) }}

// expNeg is e^x for x ≤ 0 with relative error below 1e-11 (far under the
// single precision the cache stores): x = k·ln2 + r, |r| ≤ ln2/2, e^r by its
// Taylor polynomial of degree 9 (remainder < 8e-12) evaluated by Estrin's
// scheme, which keeps the multiplications independent (twice as fast as
// math.Exp here), times 2^k. It returns 0 below −708, where e^x is
// subnormal.
func expNeg(x float64) float64 {
	if x < -708 {
		return 0
	}
	const (
		log2e = 1.4426950408889634
		ln2hi = 6.93147180369123816490e-01
		ln2lo = 1.90821492927058770002e-10
	)
	k := int64(x*log2e - 0.5) // round to nearest for x ≤ 0 (truncation toward 0)
	kf := float64(k)
	r := (x - kf*ln2hi) - kf*ln2lo
	r2 := r * r
	r4 := r2 * r2
	p := (1 + r) + r2*(1.0/2+r*(1.0/6)) +
		r4*((1.0/24+r*(1.0/120))+r2*(1.0/720+r*(1.0/5040))) +
		r4*r4*(1.0/40320+r*(1.0/362880))
	return p * math.Float64frombits(uint64(k+1023)<<52)
}

func dot(x, y []float64) float64 {
	y = y[:len(x)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// GramMatrix is the Matrix Q_ij = Scale · y_i · y_j · K_ij over a
// precomputed kernel matrix K (n × n, read through At; symmetry is the
// caller's promise).
type GramMatrix struct {
	k     mat.Matrix
	y     []int8
	scale float64
}

var _ Matrix = (*GramMatrix)(nil)

// NewGramMatrix wraps the n × n kernel matrix K with labels y (nil means all
// +1) and a positive factor scale. K is not copied.
func NewGramMatrix(K mat.Matrix, y []int8, scale float64) *GramMatrix {
	r, c := K.Dims()
	if r != c {
		panic("smo: Gram matrix is not square")
	}
	if y != nil && len(y) != r {
		panic("smo: label length differs from the Gram matrix order")
	}
	return &GramMatrix{k: K, y: y, scale: scale}
}

// Len returns n.
func (m *GramMatrix) Len() int { r, _ := m.k.Dims(); return r }

// Diag returns Scale · K_ii.
func (m *GramMatrix) Diag(i int) float64 { return m.scale * m.k.At(i, i) }

// Column sets dst[i] = Q_ij for every i in rows.
func (m *GramMatrix) Column(dst []float32, j int, rows []int) {
	for _, i := range rows {
		v := m.scale * m.k.At(i, j)
		if m.y != nil {
			v *= float64(m.y[i]) * float64(m.y[j])
		}
		dst[i] = float32(v)
	}
}

// forPairs walks the upper triangle of the dense RBF matrix: for every row
// i it computes the float32-rounded values Q_ij, j ≥ i (exactly as the
// column cache stores them, so whatever is built from them equals what the
// columns would give) into q[i−i0][i:] and calls visit(i0, i1, q) for each
// tile of rows [i0, i1) on a worker's goroutine, with the visit function
// newWorker made for that worker. Workers take nb row
// ranges with equal numbers of pairs (row i has n−i−1); progress (may be
// nil) gets the ranges done on the calling goroutine, and ctx stops the
// workers between ranges. It reports false, doing nothing, for the
// matrices it does not cover (sparse rows, other kernels).
func (m *KernelMatrix) forPairs(ctx context.Context, newWorker func() func(i0, i1 int, q [][]float64), progress func(done, total int)) (bool, error) {
	if !m.rbf || m.rows.ptr != nil {
		return false, nil
	}
	n, d := len(m.diag), m.rows.d
	data, sq := m.rows.dense, m.rows.sq
	// Ranges of about pairWork work units each (pairs times entryCost),
	// so that a worker hears ctx every few milliseconds whatever n, and
	// at least 64 of them when n allows, for the load balance.
	nb := max(1, min(64, n/64))
	if k := float64(n) * float64(n-1) / 2 * float64(m.entryCost()) / pairWork; k > float64(nb) {
		nb = max(nb, int(min(k, float64(n/pairTile))))
	}
	bounds := make([]int, nb+1)
	for c := 1; c < nb; c++ {
		bounds[c] = int(float64(n) * (1 - math.Sqrt(1-float64(c)/float64(nb))))
	}
	bounds[nb] = n
	err := parallel.ForBlocksProgress(ctx, nb, func() func(int) {
		visit := newWorker()
		tile := make([]float64, pairTile*n)
		var part []float64
		if d > crossDepth {
			part = make([]float64, pairTile*n)
		}
		q := make([][]float64, pairTile)
		for r := range q {
			q[r] = tile[r*n : (r+1)*n]
		}
		return func(c int) {
			for i0 := bounds[c]; i0 < bounds[c+1]; i0 += pairTile {
				i1 := min(i0+pairTile, bounds[c+1])
				// The tile's cross products x_iᵀx_j, j ≥ i0, in
				// register-blocked products with the arithmetic of
				// crossRange (crossProducts), so that with the steps
				// below, those of rbfRange, the values are the columns'
				// to the last bit. Wide rows hear ctx within the tile.
				var pt []float64
				if part != nil {
					pt = part[i0:]
				}
				if !crossProducts(ctx, tile[i0:], n, pt, data[i0*d:], d, m.xt[i0:], n, i1-i0, n-i0, d) {
					return
				}
				for i := i0; i < i1; i++ {
					qi := q[i-i0]
					fastmath.GaussArg(qi[i:], qi[i:], sq[i:], sq[i], -m.gamma)
					fastmath.Exp(qi[i:], qi[i:])
					for j := i; j < n; j++ {
						v := float64(float32(m.scale * qi[j]))
						if m.y != nil && m.y[i] != m.y[j] {
							v = -v
						}
						qi[j] = v
					}
				}
				visit(i0, i1, q)
			}
		}
	}, progress)
	if err == nil {
		// A tile left when ctx ended is not visited, even in the last
		// range: the pass is incomplete.
		err = ctx.Err()
	}
	return true, err
}

// pairWork is the work (see ctxEvery) of one of forPairs' row ranges.
const pairWork = 1 << 23

// pairTile is the number of rows forPairs hands to a visit at once: the
// transposed writes of fillAll then fill whole cache lines (16 float32).
const pairTile = 16

// mulAdd sets g += Q·a and gb += Q·b (a and b of length n) for the dense
// RBF matrix in one pass over the upper triangle (forPairs): each
// k(x_i, x_j) with i < j is computed once and used for both rows, so the
// pass costs n(n−1)/2 kernel values where forming the columns of the
// non-zero a_j costs nnz(a)·n. The solver uses it for its initial gradient
// when more than half of the α are non-zero and the whole matrix does not
// fit its cache (at ν = 0.9 the pass computes 0.56 of the kernel values the
// columns would). Each worker accumulates the lower-triangle contributions
// privately.
func (m *KernelMatrix) mulAdd(ctx context.Context, g, a, gb, b []float64, progress func(done, total int)) (bool, error) {
	n := len(m.diag)
	var mu sync.Mutex
	var parts [][2][]float64
	ok, err := m.forPairs(ctx, func() func(int, int, [][]float64) {
		pg, pb := make([]float64, n), make([]float64, n)
		mu.Lock()
		parts = append(parts, [2][]float64{pg, pb})
		mu.Unlock()
		return func(i0, i1 int, qt [][]float64) {
			for i := i0; i < i1; i++ {
				q := qt[i-i0]
				gi, bi := q[i]*a[i], q[i]*b[i]
				ai, bbi := a[i], b[i]
				for j := i + 1; j < n; j++ {
					v := q[j]
					gi += v * a[j]
					bi += v * b[j]
					pg[j] += v * ai
					pb[j] += v * bbi
				}
				pg[i] += gi
				pb[i] += bi
			}
		}
	}, progress)
	if !ok || err != nil {
		return ok, err
	}
	for _, p := range parts {
		for i := range g {
			g[i] += p[0][i]
			gb[i] += p[1][i]
		}
	}
	return true, nil
}

// fillAll writes the whole matrix into cols (cols[j] is column j, length
// n) from one pass over the upper triangle (forPairs): Q_ij is computed
// once and stored in both columns i and j. The solver uses it when the
// whole matrix fits its cache, so the initial gradient and every later
// iteration read stored columns: n(n+1)/2 kernel values in all. Workers
// own row tiles, so column j's entries above the diagonal are written by
// different workers at different rows, a tile (one cache line) at a time.
func (m *KernelMatrix) fillAll(ctx context.Context, cols [][]float32, progress func(done, total int)) (bool, error) {
	n := len(m.diag)
	return m.forPairs(ctx, func() func(int, int, [][]float64) {
		return func(i0, i1 int, qt [][]float64) {
			for i := i0; i < i1; i++ {
				q, ci := qt[i-i0], cols[i]
				for j := i; j < n; j++ {
					ci[j] = float32(q[j])
				}
			}
			// The lower triangle, a tile's rows at a time: column j gets
			// the i1−i0 contiguous entries Q_{i0..i1−1, j}.
			for j := i0 + 1; j < n; j++ {
				cj := cols[j]
				for i := i0; i < min(i1, j); i++ {
					cj[i] = float32(qt[i-i0][j])
				}
			}
		}
	}, progress)
}
