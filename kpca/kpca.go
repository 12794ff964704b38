package kpca

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/hugepage"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/randfeat"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Method selects how the principal subspace is computed.
type Method int

const (
	// Exact eigendecomposes the centred n × n Gram matrix (a full symmetric
	// eigendecomposition up to n = 1000, block Lanczos above).
	Exact Method = iota
	// Nystrom maps the rows to the m-dimensional Nyström features of
	// Landmarks random training rows and does linear PCA there.
	Nystrom
)

// Default settings.
const (
	// DefaultVariance is the default component rule: keep the fewest
	// components that explain half of the centred kernel's trace. Chosen
	// by make defaults (the selection protocol in the README) over fixed
	// counts and other shares; a fixed 50 components ranked last.
	DefaultVariance  = 0.5
	DefaultLandmarks = 500
)

// Config configures a kernel PCA detector. The zero value is the RBF kernel
// with gamma = scale on standardised features, the fewest components that
// explain DefaultVariance of the centred kernel's trace, the exact method
// and contamination 0.1.
type Config struct {
	// Kernel is rbf (default), laplacian, poly (γxᵀy + 1)³ (scikit-learn's
	// KernelPCA defaults; Coef0 and Degree are not used) or linear, with
	// the width rule scale
	// (default; 1/(d·Var(X)) over all entries of the training matrix) or
	// median.
	Kernel kernel.Spec
	// Components is the number q of principal components kept, at most
	// n − 1; 0 leaves q to the Variance rule.
	Components int
	// Variance in (0, 1] keeps the fewest components whose eigenvalues
	// explain at least this share of the total feature-space variance; 0
	// means DefaultVariance unless Components is set. Components and
	// Variance are exclusive.
	Variance float64
	// Method is Exact (default) or Nystrom.
	Method Method
	// Landmarks is the number of Nyström landmarks m (0 means 500; capped
	// at n, where the Nyström scores equal the exact ones).
	Landmarks int
	// Src drives the landmark draw and the Lanczos start block; nil means a
	// PCG seeded with (0, 0).
	Src rand.Source
	// Common holds the contamination rate, the scale stage and the
	// progress callback (stages "gram", "eigen" and "score").
	detector.Common
}

// Bind declares the parameters of kernel PCA. variance defaults to
// DefaultVariance only when components is not set.
func (c *Config) Bind(s *param.Set) {
	c.Kernel.Bind(s, kernel.Choices{Kinds: []string{"rbf", "laplacian", "poly", "linear"}, Rules: []string{kernel.ScaleRule, kernel.MedianRule, kernel.ScaleScottRule}})
	s.OptionalInt(&c.Components, "components", param.AtLeast(1), "number of principal components, at most n−1 (instead of variance)")
	const varHelp = "keep the fewest components explaining this share of the centred kernel's trace (unset when components is set)"
	if c.Components > 0 {
		s.OptionalFloat(&c.Variance, "variance", param.Interval(0, 1, true, false), varHelp)
	} else {
		s.Float(&c.Variance, "variance", DefaultVariance, param.Interval(0, 1, true, false), varHelp)
	}
	param.Enum(s, &c.Method, "method", []string{"exact", "nystrom"}, []Method{Exact, Nystrom}, "exact (eigenpairs of the n×n centred Gram matrix) or nystrom")
	s.Int(&c.Landmarks, "landmarks", DefaultLandmarks, param.AtLeast(1), "nystrom: number of landmark rows")
	s.Seed(&c.Src, "seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, seed) }, "seed of the landmark draw and the Lanczos start")
}

// KPCA is a kernel PCA reconstruction-error detector.
type KPCA struct {
	detector.Base
	cfg Config

	// fitted state
	gamma     float64
	kern      kernel.Kernel
	d         int
	x         *mat.Dense // exact: training rows
	rowMean   []float64  // exact: (1/n) Σ_j k(x_i, x_j)
	grand     float64    // exact: (1/n²) Σ_ij k(x_i, x_j)
	proj      *mat.Dense // Nyström: the principal axes V, m × q
	pt        *mat.Dense // exact: the projection (U Λ^{-1/2})ᵀ, max(q, 1) × n
	ny        *randfeat.Nystrom
	zMean     []float64 // Nyström: mean feature vector
	vals      []float64 // kept eigenvalues of the centred Gram matrix
	explained float64   // share of the total variance they explain
}

var _ detector.Detector = (*KPCA)(nil)

// New validates cfg and returns an unfitted detector.
func New(cfg Config) (*KPCA, error) {
	if cfg.Variance > 0 && cfg.Components > 0 {
		return nil, &param.Error{Method: "kpca", Name: "components", Value: fmt.Sprint(cfg.Components), Reason: "set components or variance, not both"}
	}
	b, err := detector.NewBase("kpca", &cfg)
	if err != nil {
		return nil, err
	}
	p := &KPCA{Base: b, cfg: cfg}
	p.SettleTiesWith(p.score) // the training scores come from the eigendecomposition
	return p, nil
}

// Config returns the resolved configuration.
func (p *KPCA) Config() Config { return p.cfg }

// spec is the kernel with the polynomial settings kernel PCA fixes.
func (p *KPCA) spec() kernel.Spec {
	k := p.cfg.Kernel
	k.Coef0, k.Degree = 1, 3
	return k
}

// Eigenvalues returns the eigenvalues of the centred training Gram matrix
// kept as principal components (descending), and the share of the total
// feature-space variance trace(K̃) they explain.
func (p *KPCA) Eigenvalues() ([]float64, float64) {
	return append([]float64(nil), p.vals...), p.explained
}

// Gamma returns the kernel parameter γ used (after resolving 'scale').
func (p *KPCA) Gamma() float64 { return p.gamma }

func (p *KPCA) progress(stage string, done, total int) { p.Report(stage, done, total) }

// Fit learns the principal subspace of the centred training features and
// sets the threshold from the training rows' reconstruction errors.
func (p *KPCA) Fit(ctx context.Context, X mat.Matrix) error {
	return p.FitWith(ctx, X, p.fit)
}

func (p *KPCA) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	n, d := X.Dims()
	if q := p.cfg.Components; q > n-1 && p.cfg.Method == Exact {
		return nil, &param.Error{Method: "kpca", Name: "components", Value: fmt.Sprint(q),
			Reason: fmt.Sprintf("must be at most n−1 = %d (the training rows minus one)", n-1)}
	}
	kern, gamma, err := p.spec().Fit(X, nil)
	if err != nil {
		return nil, fmt.Errorf("kpca: %w", err)
	}
	p.CautionIsolating(p.spec().Kind, X, gamma)
	rng := rand.New(p.cfg.Src)
	p.gamma, p.kern, p.d = gamma, kern, d
	p.x, p.rowMean, p.grand, p.proj, p.pt, p.ny, p.zMean, p.vals, p.explained = nil, nil, 0, nil, nil, nil, nil, nil, 0
	if p.cfg.Method == Nystrom {
		return p.fitNystrom(ctx, X, rng)
	}
	return p.fitExact(ctx, X, rng)
}

// target returns what to ask the eigensolver for with n training rows (or
// features) and total variance trace.
func (p *KPCA) target(n int, trace float64) eigTarget {
	if p.cfg.Variance > 0 {
		return eigTarget{frac: p.cfg.Variance, trace: trace}
	}
	return eigTarget{q: min(p.cfg.Components, n-1)}
}

// keep returns how many leading eigenvalues are numerically positive:
// λ_j > n·ε·max(λ_1, k_max), NumPy's matrix_rank cutoff, with k_max the
// largest k(x_i, x_i) so that a Gram matrix that is zero up to round-off
// (identical rows) keeps no component.
func keep(vals []float64, n int, kmax float64) int {
	if len(vals) == 0 || !(vals[0] > 0) {
		return 0
	}
	tol := float64(n) * 0x1p-52 * math.Max(vals[0], kmax)
	q := 0
	for q < len(vals) && vals[q] > tol {
		q++
	}
	return q
}

// keepVals keeps the numerically positive leading eigenvalues of vals (see
// keep) as the model's and sets the share of the total variance they
// explain; it returns their count.
func (p *KPCA) keepVals(vals []float64, n int, kmax, total float64) int {
	q := keep(vals, n, kmax)
	p.vals = vals[:q]
	var sum float64
	for _, v := range p.vals {
		sum += v
	}
	if total > 0 {
		p.explained = sum / total
	}
	return q
}

// fitExact eigendecomposes the centred Gram matrix and returns the training
// scores K̃_ii − Σ_j λ_j u_ij².
func (f *KPCA) fitExact(ctx context.Context, X mat.Matrix, rng *rand.Rand) ([]float64, error) {
	n, _ := X.Dims()
	x := mat.DenseCopyOf(X)
	f.progress("gram", 0, n)
	// The workers stop between blocks of 64 rows when ctx is done.
	// The n × n buffer is the fit's one large allocation and lives only
	// for the fit: mapped for it (huge pages, populated in one call, not
	// zeroed again by the Go runtime) and unmapped when the fit returns;
	// nothing kept by the model refers to it.
	// Rows of a multiple of four values (paddedStride): every row then
	// starts at the same offset from a 32-byte boundary as the Lanczos
	// vectors, and the pass runs on aligned vectors.
	s := paddedStride(n)
	buf, free := hugepage.Alloc((n-1)*s + n)
	defer free()
	var sym mat.SymDense
	sym.SetRawSymmetric(blas64.Symmetric{N: n, Stride: s, Data: buf, Uplo: blas.Upper})
	if err := kernel.GramProgress(ctx, &sym, f.kern, x, func(done, total int) { f.progress("gram", done, total) }); err != nil {
		return nil, err
	}
	// Only the upper triangle is ever read: the centring below, the
	// Lanczos passes and the dense eigensolver all take it as the matrix.
	raw := sym.RawSymmetric()
	k := &mat.Dense{}
	k.SetRawMatrix(blas64.General{Rows: n, Cols: n, Stride: raw.Stride, Data: raw.Data[:(n-1)*raw.Stride+n]})
	f.progress("gram", n, n)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var kmax float64
	for i := 0; i < n; i++ {
		kmax = math.Max(kmax, k.At(i, i))
	}
	rowMean, grand := upperRowMeans(raw)
	trace, err := centreUpper(ctx, raw, rowMean, grand)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(trace) || math.IsInf(trace, 0) {
		return nil, fmt.Errorf("kpca: the kernel matrix is not finite (is gamma too large?)")
	}
	vals, vt, err := topEigen(ctx, k, f.target(n, trace), rng, func(done, total int) { f.progress("eigen", done, total) })
	if err != nil {
		return nil, err
	}
	q := f.keepVals(vals, n, kmax, trace)
	train := make([]float64, n)
	for i := 0; i < n; i++ {
		train[i] = k.At(i, i)
	}
	for j := 0; j < q; j++ {
		for i, u := range vt.RawRowView(j) {
			train[i] -= vals[j] * u * u
		}
	}
	// The projection's rows u_j/√λ_j overwrite the vectors' rows when
	// those are exactly q (the dense route's and the Lanczos vectors
	// transposed; a matrix of more rows is copied, so that the model does
	// not keep them).
	pt := vt
	if r, _ := vt.Dims(); r != max(q, 1) {
		pt = mat.NewDense(max(q, 1), n, nil)
		if q > 0 {
			pt.Copy(vt.Slice(0, q, 0, n))
		}
	}
	for j := 0; j < q; j++ {
		floats.Scale(1/math.Sqrt(vals[j]), pt.RawRowView(j))
	}
	if q == 0 {
		pt.Zero()
	}
	f.x, f.rowMean, f.grand, f.pt = x, rowMean, grand, pt
	f.cautionExhaustive(train, trace, q)
	return train, nil
}

// fitNystrom does linear PCA on the centred Nyström features and returns the
// training scores.
func (f *KPCA) fitNystrom(ctx context.Context, X mat.Matrix, rng *rand.Rand) ([]float64, error) {
	n, d := X.Dims()
	m := min(f.cfg.Landmarks, n)
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	if m < n {
		rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:m]
	}
	lm := mat.NewDense(m, d, nil)
	for r, i := range rows {
		mat.Row(lm.RawRowView(r), i, X)
	}
	f.progress("gram", 0, n)
	ny, err := randfeat.NewNystromContext(ctx, f.kern, lm)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("kpca: %w", err)
	}
	// Features in blocks of rows, so a cancelled ctx is seen between them.
	z := mat.NewDense(n, m, nil)
	for i0 := 0; i0 < n; i0 += transformRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i1 := min(i0+transformRows, n)
		ny.Transform(z.Slice(i0, i1, 0, m).(*mat.Dense), csr.Rows(X, i0, i1))
		f.progress("gram", i1, n)
	}
	zc, zMean := detector.CentredCopy(z)
	// total variance Σ_i ‖φ(x_i) − φ̄‖² ≈ Σ_i k(x_i, x_i) − n‖z̄‖²
	kxx := f.selfKernel(X)
	var total, zz float64
	for _, v := range kxx {
		total += v
	}
	for _, v := range zMean {
		zz += v * v
	}
	total -= float64(n) * zz
	// cov = zcᵀ zc, accumulated a block of rows at a time (n·m² flops: the
	// largest step for big n) so a cancelled ctx is seen between blocks.
	// Each block is transposed so that its product is fastmath's
	// register-blocked one (gonum's gemm took 9.4 core-seconds of a
	// 500-landmark fit on 32_shuttle's 49,097 rows), and only the upper
	// triangle is formed, in strips of covStrip rows handed out to the
	// cores, then mirrored: half the flops of the full product, the same
	// sums.
	cov := mat.NewDense(m, m, nil)
	craw := cov.RawMatrix()
	bt := make([]float64, m*covRows)
	strips := (m + covStrip - 1) / covStrip
	for i0 := 0; i0 < n; i0 += covRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows := min(covRows, n-i0)
		blk := zc.Slice(i0, i0+rows, 0, m).(*mat.Dense).RawMatrix()
		for i := 0; i < rows; i++ {
			for j, v := range blk.Data[i*blk.Stride : i*blk.Stride+m] {
				bt[j*rows+i] = v
			}
		}
		parallel.ForBlocks(strips, func() func(int) {
			part := make([]float64, covStrip*m)
			return func(b int) {
				r0, r1 := b*covStrip, min((b+1)*covStrip, m)
				w := m - r0
				fastmath.MulNN(part, w, bt[r0*rows:], rows, blk.Data[r0:], blk.Stride, r1-r0, w, rows)
				for r := r0; r < r1; r++ {
					floats.Add(craw.Data[r*craw.Stride+r0:r*craw.Stride+m], part[(r-r0)*w:(r-r0+1)*w])
				}
			}
		})
	}
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			craw.Data[j*craw.Stride+i] = craw.Data[i*craw.Stride+j]
		}
	}
	f.progress("eigen", 0, 1)
	t := f.target(n, total)
	if t.q > 0 {
		t.q = min(t.q, m)
	}
	vals, vecs, err := denseTop(ctx, cov, t)
	if err != nil {
		return nil, err
	}
	f.progress("eigen", 1, 1)
	var kmax float64
	for _, v := range kxx {
		kmax = math.Max(kmax, v)
	}
	q := f.keepVals(vals, n, kmax, total)
	f.proj = transposed(vecs.Slice(0, max(q, 1), 0, m).(*mat.Dense))
	if q == 0 {
		f.proj.Zero()
	}
	f.ny, f.zMean = ny, zMean
	train := f.nystromScores(nil, kxx, z, zc)
	f.cautionExhaustive(train, total, q)
	return train, nil
}

// cautionExhaustive cautions (Base.Caution) when the q components kept
// reconstruct every training row: the largest training score at most
// √ε ≈ 1.5e-8 (half of float64's digits) of the mean squared norm
// total/n of the centred training features. The training scores are then
// rounding, and so is the threshold: components=n−1 or variance=1 flagged
// every new row of the training distribution (100 of 100), with no
// warning.
func (f *KPCA) cautionExhaustive(train []float64, total float64, q int) {
	n := len(train)
	if n == 0 || !(total > 0) {
		return
	}
	top := train[0]
	for _, v := range train {
		top = math.Max(top, v)
	}
	if top <= math.Sqrt(0x1p-52)*total/float64(n) {
		// The scores are rounding of the eigendecomposition's, which
		// Score's rounding differs from: set them to the exact 0 they
		// stand for, so that the threshold's near-tie rescoring
		// (detector's SettleTiesWith), whose tolerance is relative to the
		// scores' own size, takes every row through Score's path and
		// scoring the training rows flags the rows the fit flagged (it
		// flagged 299 of 299 rows of one binary column).
		clear(train)
		f.Caution(fmt.Sprintf("kpca: the %d components kept reconstruct every training row (the largest training score, %.3g, is rounding beside the mean squared norm %.3g of the centred training features): the threshold is rounding noise, so rows are flagged by rounding, and every row not in the training data is flagged (keep fewer components: components below n−1 = %d, or variance below 1)", q, top, total/float64(n), n-1))
	}
}

// nystromScores returns k(x,x) − ‖z‖² + ‖z − z̄‖² − ‖Vᵀ(z − z̄)‖² per row;
// zc is z − z̄.
func (f *KPCA) nystromScores(dst, kxx []float64, z, zc *mat.Dense) []float64 {
	n, _ := z.Dims()
	dst = detector.ScoreDst(dst, n)
	var pz mat.Dense
	pz.Mul(zc, f.proj)
	q := len(f.vals)
	for i := 0; i < n; i++ {
		var zn, zcn, pn float64
		for _, v := range z.RawRowView(i) {
			zn += v * v
		}
		for _, v := range zc.RawRowView(i) {
			zcn += v * v
		}
		for _, v := range pz.RawRowView(i)[:q] {
			pn += v * v
		}
		dst[i] = (kxx[i] - zn) + zcn - pn
	}
	return dst
}

// selfKernel returns k(x_i, x_i) for the rows of X.
func (f *KPCA) selfKernel(X mat.Matrix) []float64 {
	n, d := X.Dims()
	out := make([]float64, n)
	switch f.kern.(type) {
	case kernel.RBF, kernel.Laplacian:
		for i := range out {
			out[i] = 1
		}
		return out
	}
	row := make([]float64, d)
	for i := range out {
		mat.Row(row, i, X)
		out[i] = f.kern.Eval(row, row)
	}
	return out
}

// transformRows is the number of rows mapped to Nyström features per step
// of Fit (ctx is checked between steps).
const transformRows = 4096

// covRows is the block of rows of the Nyström covariance: the block
// transposed (m × covRows) and a strip of partial sums per core are its
// scratch, and adding the partial sums costs 1/(2·covRows) of the
// products' flops. covStrip is the strip of the covariance's rows one
// core forms at a time.
const (
	covRows  = 512
	covStrip = 64
)

// scoreRows is the number of rows scored per kernel block.
const scoreRows = 512

// Score sets dst[i] to the squared feature-space reconstruction error of
// row i (see the package documentation).
func (p *KPCA) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return p.ScoreWith(dst, X, p.score)
}

func (p *KPCA) score(dst []float64, X mat.Matrix) ([]float64, error) {
	m, _ := X.Dims()
	dst = detector.ScoreDst(dst, m)
	var kxData []float64 // the kernel block of every step (exact method)
	var pt *mat.Dense    // the projection transposed, q × n
	var corr []float64   // its centring corrections (see exactScores)
	if p.ny == nil {
		pt, corr = p.projT()
		// One block for all steps, mapped afresh and unmapped on return:
		// from the Go heap the runtime would zero its 28 MB (n = 7,000)
		// in 4 KiB faults first.
		var free func()
		kxData, free = hugepage.Alloc(min(scoreRows, m) * len(p.rowMean))
		defer free()
	}
	for i0 := 0; i0 < m; i0 += scoreRows {
		i1 := min(i0+scoreRows, m)
		xb := csr.Rows(X, i0, i1)
		kxx := p.selfKernel(xb)
		if p.ny != nil {
			var z mat.Dense
			p.ny.Transform(&z, xb)
			zc := mat.DenseCopyOf(&z)
			for i := 0; i < i1-i0; i++ {
				row := zc.RawRowView(i)
				for j := range row {
					row[j] -= p.zMean[j]
				}
			}
			p.nystromScores(dst[i0:i1], kxx, &z, zc)
			continue
		}
		n := len(p.rowMean)
		kx := mat.NewDense(i1-i0, n, kxData[:(i1-i0)*n])
		kernel.Cross(kx, p.kern, xb, p.x)
		p.exactScores(dst[i0:i1], kxx, kx, pt, corr)
	}
	return dst, nil
}

// projT returns the projection P = U Λ^{-1/2} transposed (q × n, so each
// component's coefficients are one contiguous row: the model's own pt)
// and, per component c, the centring terms S_c = Σ_j P_jc and
// μ_c = Σ_j rowMean_j·P_jc, stored as corr[2c], corr[2c+1].
func (p *KPCA) projT() (*mat.Dense, []float64) {
	q := len(p.vals)
	corr := make([]float64, 2*max(q, 1))
	for c := 0; c < q; c++ {
		row := p.pt.RawRowView(c)
		corr[2*c] = floats.Sum(row)
		corr[2*c+1] = floats.Dot(p.rowMean, row)
	}
	return p.pt, corr
}

// exactScores sets dst[i] = k̃(x_i, x_i) − Σ_c z_ic² for the rows of the
// uncentred kernel block kx (rows × n) without centring it in place: with
// r_i its row mean, the centred row is kx_ij + grand − r_i − rowMean_j, so
// z_ic = kx_i·P_c + (grand − r_i)·S_c − μ_c (projT), and k̃(x_i, x_i) =
// k(x_i, x_i) − 2r_i + grand. One pass for r_i and q dot products per row
// (fastmath.Dot4, four components at a time), rows split over the cores.
func (p *KPCA) exactScores(dst, kxx []float64, kx, pt *mat.Dense, corr []float64) {
	rows, n := kx.Dims()
	q := len(p.vals)
	parallel.ForRanges(rows, 16, func(lo, hi int) {
		z := make([]float64, q+3)
		for i := lo; i < hi; i++ {
			row := kx.RawRowView(i)
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
			s := kxx[i] - 2*rm + p.grand
			for c := 0; c < q; c++ {
				v := z[c] + (p.grand-rm)*corr[2*c] - corr[2*c+1]
				s -= v * v
			}
			dst[i] = s
		}
	})
}

// upperHalves splits the rows of an n × n upper triangle at the row that
// leaves half its elements on each side.
func upperHalves(n int) [2][2]int {
	split := int(float64(n) * (1 - 1/math.Sqrt2))
	return [2][2]int{{0, split}, {split, n}}
}

// upperRowMeans returns the row means of the symmetric matrix whose upper
// triangle raw holds, and their mean, in one pass over the triangle: row i
// adds its elements to its own sum and each a_ij (j > i) to row j's, on
// two goroutines with their own column sums.
func upperRowMeans(raw blas64.Symmetric) ([]float64, float64) {
	n := raw.N
	var sums [2][]float64
	var wg sync.WaitGroup
	for g, r := range upperHalves(n) {
		sums[g] = make([]float64, n)
		wg.Add(1)
		go func(sum []float64, lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
				s := 0.0
				for j, v := range row {
					s += v
					sum[i+j] += v
				}
				sum[i] += s - row[0] // the diagonal once
			}
		}(sums[g], r[0], r[1])
	}
	wg.Wait()
	mean := sums[0]
	var grand float64
	for i := range mean {
		mean[i] = (mean[i] + sums[1][i]) / float64(n)
		grand += mean[i]
	}
	return mean, grand / float64(n)
}

// centreUpper centres the upper triangle of the kernel matrix in place,
// k_ij + k̄ − k̄_i − k̄_j (the centred matrix HKH of the features' mean
// removed), on two goroutines, and returns the centred trace. It stops
// between blocks of 256 rows when ctx is done.
func centreUpper(ctx context.Context, raw blas64.Symmetric, rowMean []float64, grand float64) (float64, error) {
	n := raw.N
	var wg sync.WaitGroup
	for _, r := range upperHalves(n) {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				if (i-lo)%256 == 0 && ctx.Err() != nil {
					return
				}
				row := raw.Data[i*raw.Stride+i : i*raw.Stride+n]
				c := grand - rowMean[i]
				for j := range row {
					row[j] += c - rowMean[i+j]
				}
			}
		}(r[0], r[1])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var trace float64
	for i := 0; i < n; i++ {
		trace += raw.Data[i*raw.Stride+i]
	}
	return trace, nil
}
