package kpca

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/hugepage"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/randfeat"
)

// Method selects how the principal subspace is computed.
type Method int

const (
	// Exact eigendecomposes the centred n × n Gram matrix (a full symmetric
	// eigendecomposition up to n = 300, block Lanczos above).
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
	DefaultVariance = 0.5
	// DefaultLandmarks is the default number of Nyström landmarks.
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
	// PCG seeded with (0, 0). A seeded source (what seed=N makes) gives
	// every fit the same stream.
	Src rand.Source
	// Common holds the contamination rate, the scale stage, the sample
	// and the progress callback (the stages are listed in the package
	// documentation).
	method.Common
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

// KPCA is a kernel PCA reconstruction-error detector. A fitted KPCA is
// safe for concurrent Score calls, also while a refit runs.
type KPCA struct {
	method.Base[*model]
	cfg Config
}

var _ detector.Detector = (*KPCA)(nil)

// New validates cfg and returns an unfitted detector.
func New(cfg Config) (*KPCA, error) {
	if cfg.Variance > 0 && cfg.Components > 0 {
		return nil, &param.Error{Method: "kpca", Name: "components", Value: fmt.Sprint(cfg.Components), Reason: "set components or variance, not both"}
	}
	p := &KPCA{cfg: cfg}
	// Settle: the training scores come from the eigendecomposition.
	// Densify: the kernels and the Gram matrix work on dense rows (see
	// the package documentation, Sparse input).
	return method.Init(p, &p.Base, "kpca", &p.cfg, method.Hooks[*model]{Fit: p.fit, Decode: p.decode, Settle: true, Densify: true})
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
// feature-space variance trace(K̃) they explain; nil and 0 before Fit.
func (p *KPCA) Eigenvalues() ([]float64, float64) {
	m, ok := p.Model()
	if !ok {
		return nil, 0
	}
	return append([]float64(nil), m.vals...), m.explained
}

// Gamma returns the kernel parameter γ used (after resolving its rule);
// 0 before Fit.
func (p *KPCA) Gamma() float64 {
	if m, ok := p.Model(); ok {
		return m.gamma
	}
	return 0
}

// Fit learns the principal subspace of the centred training features and
// sets the threshold from the training rows' reconstruction errors.
func (p *KPCA) Fit(ctx context.Context, X mat.Matrix) error { return p.Base.Fit(ctx, X) }

// Score sets dst[i] to the squared feature-space reconstruction error of
// row i (see the package documentation).
func (p *KPCA) Score(dst []float64, X mat.Matrix) ([]float64, error) { return p.Base.Score(dst, X) }

// fitRand returns the random stream of one fit: for a seeded source (what
// seed=N makes, and the default) a fresh stream of its seed, so that every
// fit draws as the first and a failed fit leaves nothing consumed; any
// other source is drawn from as it is.
func (p *KPCA) fitRand() *rand.Rand {
	if s, ok := p.cfg.Src.(*param.Seeded); ok {
		return rand.New(rand.NewPCG(s.Seed, s.Seed))
	}
	return rand.New(p.cfg.Src)
}

// fit fits a model on the training rows of f and returns it with the
// training rows' scores.
func (p *KPCA) fit(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
	n, d := f.Dims()
	if q := p.cfg.Components; q > n-1 && p.cfg.Method == Exact {
		return nil, nil, &param.Error{Method: "kpca", Name: "components", Value: fmt.Sprint(q),
			Reason: fmt.Sprintf("must be at most n−1 = %d (the training rows minus one)", n-1)}
	}
	// The exact model keeps the training rows: the scaled copy is taken
	// over. The Nyström fit only reads them (landmarks and features), so
	// it does not need a copy of its own.
	var X mat.Matrix
	var err error
	if p.cfg.Method == Exact {
		X, err = f.Dense(ctx)
	} else {
		X, err = f.Matrix(ctx)
	}
	if err == nil {
		err = ctx.Err() // the rows in memory were scaled in one piece
	}
	if err != nil {
		return nil, nil, err
	}
	kern, gamma, err := p.spec().Fit(X, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("kpca: %w", err)
	}
	if err := ctx.Err(); err != nil { // the width rule passes over all the rows
		return nil, nil, err
	}
	f.CautionIsolating(p.spec().Kind, X, gamma)
	if err := ctx.Err(); err != nil { // up to 2·10⁷ values read
		return nil, nil, err
	}
	m := &model{kern: kern, gamma: gamma, d: d}
	var train []float64
	if p.cfg.Method == Nystrom {
		train, err = p.fitNystrom(ctx, f, m, X)
	} else {
		train, err = p.fitExact(ctx, f, m, X.(*mat.Dense))
	}
	if err != nil {
		return nil, nil, err
	}
	return m, train, nil
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
func (m *model) keepVals(vals []float64, n int, kmax, total float64) int {
	q := keep(vals, n, kmax)
	m.vals = vals[:q]
	var sum float64
	for _, v := range m.vals {
		sum += v
	}
	if total > 0 {
		m.explained = sum / total
	}
	return q
}

// fitExact eigendecomposes the centred Gram matrix of the rows x (which
// the model keeps) and returns the training scores K̃_ii − Σ_j λ_j u_ij².
func (p *KPCA) fitExact(ctx context.Context, f *method.Fitting, m *model, x *mat.Dense) ([]float64, error) {
	n, _ := x.Dims()
	// The n × n buffer is the fit's one large allocation and lives only
	// for the fit: mapped for it (huge pages, not zeroed again by the Go
	// runtime) and unmapped when the fit returns; nothing kept by the
	// model refers to it. Rows of a multiple of four values
	// (paddedStride): every row then starts at the same offset from a
	// 32-byte boundary as the Lanczos vectors, and the pass runs on
	// aligned vectors.
	s := paddedStride(n)
	buf, free, err := mapContext(ctx, (n-1)*s+n, func(done, total int) { f.Report("allocate", done, total) })
	if err != nil {
		return nil, err
	}
	defer free()
	f.Report("gram", 0, n)
	var sym mat.SymDense
	sym.SetRawSymmetric(blas64.Symmetric{N: n, Stride: s, Data: buf, Uplo: blas.Upper})
	// The workers stop between blocks of 64 rows when ctx is done.
	if err := kernel.GramProgress(ctx, &sym, m.kern, x, func(done, total int) { f.Report("gram", done, total) }); err != nil {
		return nil, err
	}
	// Only the upper triangle is ever read: the centring below, the
	// Lanczos passes and the dense eigensolver all take it as the matrix.
	raw := sym.RawSymmetric()
	k := &mat.Dense{}
	k.SetRawMatrix(blas64.General{Rows: n, Cols: n, Stride: raw.Stride, Data: raw.Data[:(n-1)*raw.Stride+n]})
	var kmax float64
	for i := 0; i < n; i++ {
		kmax = math.Max(kmax, raw.Data[i*raw.Stride+i])
	}
	rowMean, grand, err := upperRowMeans(ctx, raw)
	if err != nil {
		return nil, err
	}
	trace, err := centreUpper(ctx, raw, rowMean, grand)
	if err != nil {
		return nil, err
	}
	if math.IsNaN(trace) || math.IsInf(trace, 0) {
		return nil, fmt.Errorf("kpca: the kernel matrix is not finite (is gamma too large?)")
	}
	vals, vt, err := topEigen(ctx, k, p.target(n, trace), p.fitRand(), f.Report)
	if err != nil {
		return nil, err
	}
	q := m.keepVals(vals, n, kmax, trace)
	train := make([]float64, n)
	for i := range train {
		train[i] = raw.Data[i*raw.Stride+i]
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
	m.setExact(x, rowMean, grand, pt)
	cautionExhaustive(f, train, trace, q)
	return train, nil
}

// prefaultValues is the part of the Gram buffer populated at a time
// (4 MiB, the least hugepage.Prefault advises): between parts the fit
// looks at its context. Populated in one call, the 800 MB of 10,000 rows
// kept a cancelled fit busy for seconds before its first check, and its
// progress silent. The time is the virtual machine's more than ours: 800
// MB took from 0.09 s to 16 s here, by 4 MiB or 32 MiB parts alike, and a
// part from 1 ms to hundreds when the host had yet to back it.
const prefaultValues = 512 << 10

// mapContext maps a buffer of size values outside the Go heap
// (hugepage.Reserve) and populates it a part at a time, returning
// ctx.Err() (with nothing mapped) once ctx is done. progress receives the
// MiB populated, of the buffer's, every 16 parts and at the end.
func mapContext(ctx context.Context, size int, progress func(done, total int)) ([]float64, func(), error) {
	buf, free := hugepage.Reserve(size)
	const mib = 1 << 17 // values
	total := (size + mib - 1) / mib
	for lo, part := 0, 0; lo < size; lo, part = lo+prefaultValues, part+1 {
		if err := ctx.Err(); err != nil {
			free()
			return nil, nil, err
		}
		if part%16 == 0 {
			progress(lo/mib, total)
		}
		hugepage.Prefault(buf[lo:min(size, lo+prefaultValues)])
	}
	progress(total, total)
	return buf, free, nil
}

// featureWork bounds the multiply-adds of one block of the Nyström fit's
// passes (features, covariance, training scores), as scoreWork does
// Score's: ctx is looked at between blocks.
const featureWork = 1 << 25

// fitNystrom does linear PCA on the centred Nyström features of the rows
// X and returns the training scores.
func (p *KPCA) fitNystrom(ctx context.Context, f *method.Fitting, m *model, X mat.Matrix) ([]float64, error) {
	n, d := X.Dims()
	k := min(p.cfg.Landmarks, n)
	rng := p.fitRand()
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	if k < n {
		rng.Shuffle(n, func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		rows = rows[:k]
	}
	lm := mat.NewDense(k, d, nil)
	for r, i := range rows {
		mat.Row(lm.RawRowView(r), i, X)
	}
	f.Report("landmarks", 0, 1)
	ny, err := randfeat.NewNystromContext(ctx, m.kern, lm)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("kpca: %w", err)
	}
	f.Report("landmarks", 1, 1)
	lm = nil // the map holds its own copy: m × d values a wide matrix cannot afford twice
	cross := newCrossRows(m.kern, ny.Landmarks.(*mat.Dense))
	m.ny, m.cross = ny, cross

	// The features z of every row (n × m), in blocks of rows; their
	// squared norms and k(x, x) are kept per row, and z is centred in
	// place: there is no second n × m matrix.
	block := max(4, min(4096, featureWork/(k*(d+k))))
	z := mat.NewDense(n, k, nil)
	zr := z.RawMatrix()
	kxx := make([]float64, n)
	zn := make([]float64, n)
	kx := make([]float64, block*k)
	zMean := make([]float64, k) // the features' sum, then their mean
	var cs crossScratch
	var xb mat.Dense
	f.Report("features", 0, n)
	for i0 := 0; i0 < n; i0 += block {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i1 := min(i0+block, n)
		rb := denseRows(&xb, X, i0, i1)
		cross.into(kx, rb, &cs)
		m.features(zr.Data[i0*zr.Stride:], kx, i1-i0)
		selfKernel(kxx[i0:i1], m.kern, rb)
		for i := i0; i < i1; i++ {
			row := z.RawRowView(i)
			zn[i] = fastmath.SumSquares(row)
			for j, v := range row {
				zMean[j] += v
			}
		}
		f.Report("features", i1, n)
	}
	for j := range zMean {
		zMean[j] /= float64(n)
	}
	// total variance Σ_i ‖φ(x_i) − φ̄‖² ≈ Σ_i k(x_i, x_i) − n‖z̄‖²
	var total float64
	for _, v := range kxx {
		total += v
	}
	total -= float64(n) * fastmath.SumSquares(zMean)
	cov, err := covariance(ctx, f, z, zMean)
	if err != nil {
		return nil, err
	}
	t := p.target(n, total)
	if t.q > 0 {
		t.q = min(t.q, k)
	}
	vals, vecs, err := denseTop(ctx, cov, t, f.Report)
	if err != nil {
		return nil, err
	}
	var kmax float64
	for _, v := range kxx {
		kmax = math.Max(kmax, v)
	}
	q := m.keepVals(vals, n, kmax, total)
	proj := transposed(vecs.Slice(0, max(q, 1), 0, k).(*mat.Dense))
	if q == 0 {
		proj.Zero()
	}
	m.setNystrom(ny, zMean, proj)
	// The training scores from the centred features, a block at a time.
	train := make([]float64, n)
	_, c := proj.Dims()
	pz := make([]float64, block*c)
	for i0 := 0; i0 < n; i0 += block {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i1 := min(i0+block, n)
		m.centredScores(train[i0:i1], kxx[i0:i1], zn[i0:i1], zr.Data[i0*zr.Stride:i1*zr.Stride], pz)
	}
	cautionExhaustive(f, train, total, q)
	return train, nil
}

// covRows is the block of rows of the Nyström covariance: the block
// transposed (m × covRows) and a strip of partial sums per core are its
// scratch, and adding the partial sums costs 1/(2·covRows) of the
// products' flops. covStrip is the strip of the covariance's rows one
// core forms at a time.
const (
	covRows  = 512
	covStrip = 64
)

// covariance centres the features z (n × m) in place on their mean zMean
// and returns zcᵀ zc for the centred zc, a block of rows at a time (n·m²
// flops: the largest step for big n). Each block is centred, then
// transposed so that its product is fastmath's register-blocked one
// (gonum's gemm took 9.4 core-seconds of a 500-landmark fit on
// 32_shuttle's 49,097 rows), and only the upper triangle is formed, in
// strips of covStrip rows handed out to the cores (ctx is looked at
// between strips), then mirrored: half the flops of the full product, the
// same sums.
func covariance(ctx context.Context, f *method.Fitting, z *mat.Dense, zMean []float64) (*mat.Dense, error) {
	n, m := z.Dims()
	cov := mat.NewDense(m, m, nil)
	craw := cov.RawMatrix()
	bt := make([]float64, m*covRows)
	strips := (m + covStrip - 1) / covStrip
	f.Report("covariance", 0, n)
	for i0 := 0; i0 < n; i0 += covRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rows := min(covRows, n-i0)
		blk := z.Slice(i0, i0+rows, 0, m).(*mat.Dense).RawMatrix()
		for i := 0; i < rows; i++ {
			floats.Sub(blk.Data[i*blk.Stride:i*blk.Stride+m], zMean)
		}
		for i := 0; i < rows; i++ {
			for j, v := range blk.Data[i*blk.Stride : i*blk.Stride+m] {
				bt[j*rows+i] = v
			}
		}
		err := parallel.ForBlocksContext(ctx, strips, func() func(int) {
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
		if err != nil {
			return nil, err
		}
		f.Report("covariance", i0+rows, n)
	}
	for i := 0; i < m; i++ {
		for j := i + 1; j < m; j++ {
			craw.Data[j*craw.Stride+i] = craw.Data[i*craw.Stride+j]
		}
	}
	return cov, nil
}

// cautionExhaustive cautions when the q components kept reconstruct every
// training row: the largest training score at most √ε ≈ 1.5e-8 (half of
// float64's digits) of the mean squared norm total/n of the centred
// training features. The training scores are then rounding, and so is the
// threshold: components=n−1 or variance=1 flagged every new row of the
// training distribution (100 of 100), with no warning.
func cautionExhaustive(f *method.Fitting, train []float64, total float64, q int) {
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
		// (Hooks.Settle), whose tolerance is relative to the scores' own
		// size, takes every row through Score's path and scoring the
		// training rows flags the rows the fit flagged (it flagged 299
		// of 299 rows of one binary column).
		clear(train)
		f.Caution(fmt.Sprintf("kpca: the %d components kept reconstruct every training row (the largest training score, %.3g, is rounding beside the mean squared norm %.3g of the centred training features): the threshold is rounding noise, so rows are flagged by rounding, and every row not in the training data is flagged (keep fewer components: components below n−1 = %d, or variance below 1)", q, top, total/float64(n), n-1))
	}
}

// upperHalves splits the rows of an n × n upper triangle at the row that
// leaves half its elements on each side.
func upperHalves(n int) [2][2]int {
	split := int(float64(n) * (1 - 1/math.Sqrt2))
	return [2][2]int{{0, split}, {split, n}}
}

// triangleRows is the number of rows of the n × n triangle a goroutine of
// upperRowMeans and centreUpper passes over between looks at the context
// (at n = 10,000 about 2.5·10⁶ elements, a few milliseconds).
const triangleRows = 256

// upperRowMeans returns the row means of the symmetric matrix whose upper
// triangle raw holds, and their mean, in one pass over the triangle: row i
// adds its elements to its own sum and each a_ij (j > i) to row j's, on
// two goroutines with their own column sums. It returns ctx.Err() once
// ctx is done.
func upperRowMeans(ctx context.Context, raw blas64.Symmetric) ([]float64, float64, error) {
	n := raw.N
	var sums [2][]float64
	var wg sync.WaitGroup
	for g, r := range upperHalves(n) {
		sums[g] = make([]float64, n)
		wg.Add(1)
		go func(sum []float64, lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				if (i-lo)%triangleRows == 0 && ctx.Err() != nil {
					return
				}
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
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	mean := sums[0]
	var grand float64
	for i := range mean {
		mean[i] = (mean[i] + sums[1][i]) / float64(n)
		grand += mean[i]
	}
	return mean, grand / float64(n), nil
}

// centreUpper centres the upper triangle of the kernel matrix in place,
// k_ij + k̄ − k̄_i − k̄_j (the centred matrix HKH of the features' mean
// removed), on two goroutines, and returns the centred trace. It stops
// between blocks of triangleRows rows when ctx is done.
func centreUpper(ctx context.Context, raw blas64.Symmetric, rowMean []float64, grand float64) (float64, error) {
	n := raw.N
	var wg sync.WaitGroup
	for _, r := range upperHalves(n) {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				if (i-lo)%triangleRows == 0 && ctx.Err() != nil {
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
