package expose

import (
	"context"
	"fmt"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
)

// The Nyström map (map=nystrom): z(x) = R⁻ᵀ k_r(x) on the r ≤ m landmarks
// that a pivoted Cholesky factorisation K_mm = PᵀRᵀRP with a cut-off keeps
// of the m drawn uniformly from the training rows
// (randfeat.NewNystromCholesky), so ⟨z(x), z(y)⟩ = k_r(x)ᵀ K_rr⁻¹ k_r(y),
// the Nyström kernel. The embedding w = (1/n) Σ z(x_i) lives in those r
// coordinates as it does for the random maps, so the SGD solver, its
// projection and Theorem 1 are unchanged (‖z(x)‖² ≤ k(x, x) = 1). But
//
//	⟨z(y), w⟩ = k_r(y)ᵀ R⁻¹ w = k_r(y)ᵀ α,   α = R⁻¹ w,
//
// so scoring needs only the r kernel values of a row and α, fixed at fit:
// O(r·d) per row, not the O(r·d + r²) of the features. The batch sum
// likewise adds the kernel rows k_r(x_i) and applies R⁻ᵀ once at the end.

// Nystrom is the name of the Nyström feature map.
const Nystrom = "nystrom"

// DefaultLandmarks is the default landmark count m of map=nystrom (capped
// at the rows a fit draws them from), chosen by the defaults protocol
// (docs/defaults.md): at m = 500 the mean AUC and average precision on
// ADBench (0.8987 / 0.5121) and on the held-out families (0.8364 /
// 0.5536) are those of kde with the same kernel and width (0.8986 /
// 0.5092, 0.8364 / 0.5537), and fit + score of the reference suite take
// three quarters of the random map's CPU time at D = 2,000, on 32_shuttle
// a little over half; m = 1,000 is no better on either mean and costs
// slightly more than the random map. The pivoted Cholesky factorisation
// costs at most m³/3 flops (7 ms at m = 500, 36 ms at 1,000,
// BenchmarkNystromNew in randfeat), a row's score m kernel values.
const DefaultLandmarks = 500

// kern returns the configured shift-invariant kernel at width gamma.
func (d *EXPoSE) kern(gamma float64) kernel.ShiftInvariant {
	if d.cfg.Kernel.Kind == "laplacian" {
		return kernel.Laplacian{Gamma: gamma}
	}
	return kernel.RBF{Gamma: gamma}
}

// landmarkCount is the landmarks a fit draws from rows rows.
func (d *EXPoSE) landmarkCount(rows int) int { return min(d.cfg.Landmarks, rows) }

// drawLandmarks draws the landmarks of a Nyström fit uniformly without
// replacement from the detector's stream, as dense rows in ascending
// order of the rows they are: from S (the SGD solver's stage sample, so
// that its fit reads no other row) when it is not nil, else from every
// training row, read by index (f.Rows: scaled).
func (d *EXPoSE) drawLandmarks(ctx context.Context, f *method.Fitting, S mat.Matrix) (*mat.Dense, error) {
	if S != nil {
		k, _ := S.Dims()
		return denseRows(S, method.SampleIndices(d.rng, k, d.landmarkCount(k))), nil
	}
	n, _ := f.Dims()
	X, err := f.Rows(ctx, method.SampleIndices(d.rng, n, d.landmarkCount(n)))
	if err != nil {
		return nil, err
	}
	return denseCopy(X), nil
}

// denseCopy returns a dense copy of X (a CSR matrix densified).
func denseCopy(X mat.Matrix) *mat.Dense {
	if s, ok := csr.Input(X).(*sparse.CSR); ok {
		return s.ToDense()
	}
	return mat.DenseCopyOf(X)
}

// denseRows returns rows idx of X as a dense matrix.
func denseRows(X mat.Matrix, idx []int) *mat.Dense {
	if s, ok := csr.Input(X).(*sparse.CSR); ok {
		return csr.Subset(s, idx).ToDense()
	}
	_, c := X.Dims()
	L := mat.NewDense(len(idx), c, nil)
	for r, i := range idx {
		mat.Row(L.RawRowView(r), i, X)
	}
	return L
}

// newNystromModel builds the Nyström map on the landmarks L at width
// gamma (stage "landmarks": 0 then 1 of 1 around the factorisation)
// and returns a model on it with a zero embedding.
func (d *EXPoSE) newNystromModel(ctx context.Context, f *method.Fitting, gamma float64, L *mat.Dense) (*model, error) {
	f.Report("landmarks", 0, 1)
	ny, err := randfeat.NewNystromCholesky(ctx, d.kern(gamma), L)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("expose: %w", err)
	}
	f.Report("landmarks", 1, 1)
	return d.nystromModel(ny, gamma), nil
}

// nystromModel returns a model on the Nyström map ny with a zero
// embedding.
func (d *EXPoSE) nystromModel(ny *randfeat.Nystrom, gamma float64) *model {
	m := ny.Dim()
	return &model{fm: ny, ny: ny, cross: newLandmarkCross(ny), gamma: gamma, reg: newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, ny),
		w: make([]float64, m), alpha: make([]float64, m), chunk: d.cfg.ChunkRows}
}

// landmarkCross computes the kernel values of rows against the landmarks
// of a Nyström map, k_m(x), with the landmarks prepared once: for the rbf
// kernel and dense rows, centred on their column means, transposed (d × m)
// and with their squared norms, so that a block of rows costs one
// register-blocked product (fastmath.MulNN), the exponents and
// fastmath.Exp, as kernel.Cross computes them from 1,024 landmarks on.
// Below that kernel.Cross multiplies by the landmarks through gonum's
// transposed product, a dot product of length d per value, mostly call
// overhead for tabular d (three times the cosines of the random map's
// scores on 32_shuttle at m = 1,000). Each value is the same sum
// whatever block its row is in. Other kernels and sparse rows go through
// kernel.Cross.
type landmarkCross struct {
	k     kernel.Kernel
	L     mat.Matrix
	m, d  int
	gamma float64   // rbf: −γ
	mu    []float64 // rbf: the landmarks' column means
	lt    []float64 // rbf: the centred landmarks transposed, d × m
	ln    []float64 // rbf: their squared norms
}

func newLandmarkCross(ny *randfeat.Nystrom) *landmarkCross {
	m, d := ny.Landmarks.Dims()
	c := &landmarkCross{k: ny.K, L: ny.Landmarks, m: m, d: d}
	rbf, ok := ny.K.(kernel.RBF)
	L, dense := ny.Landmarks.(*mat.Dense)
	if !ok || !dense {
		return c
	}
	c.gamma, c.mu, c.lt, c.ln = -rbf.Gamma, make([]float64, d), make([]float64, d*m), make([]float64, m)
	for i := range m {
		floats.Add(c.mu, L.RawRowView(i))
	}
	floats.Scale(1/float64(m), c.mu)
	row := make([]float64, d)
	for i := range m {
		floats.SubTo(row, L.RawRowView(i), c.mu)
		c.ln[i] = fastmath.SumSquares(row)
		for j, v := range row {
			c.lt[j*m+i] = v
		}
	}
	return c
}

// crossScratch is a worker's scratch for landmarkCross.rows.
type crossScratch struct{ xc, xn []float64 }

// rows sets dst (r × m, row-major) to the kernel values of the r rows of X
// against the landmarks, on the calling goroutine.
func (c *landmarkCross) rows(dst []float64, X mat.Matrix, s *crossScratch) {
	r, _ := X.Dims()
	xd, dense := X.(*mat.Dense)
	if c.lt == nil || !dense {
		var out mat.Dense
		out.SetRawMatrix(blas64.General{Rows: r, Cols: c.m, Stride: c.m, Data: dst[:r*c.m]})
		kernel.Cross(&out, c.k, X, c.L)
		return
	}
	if cap(s.xc) < r*c.d {
		s.xc, s.xn = make([]float64, r*c.d), make([]float64, r)
	}
	xc, xn := s.xc[:r*c.d], s.xn[:r]
	for i := range r {
		row := xc[i*c.d : (i+1)*c.d]
		floats.SubTo(row, xd.RawRowView(i), c.mu)
		xn[i] = fastmath.SumSquares(row)
	}
	fastmath.MulNN(dst, c.m, xc, c.d, c.lt, c.m, r, c.m, c.d)
	for i := range r {
		seg := dst[i*c.m : (i+1)*c.m]
		fastmath.GaussArg(seg, seg, c.ln, xn[i], c.gamma)
		fastmath.Exp(seg, seg)
	}
}

// crossBlock is the rows of X one worker's call of landmarkCross.rows
// covers in crossPar.
const crossBlock = 32

// crossPar sets dst (r × m, row-major) to the kernel values of the rows
// of X against the landmarks, blocks of crossBlock rows on every core,
// and returns ctx.Err() soon after ctx ends.
func (c *landmarkCross) crossPar(ctx context.Context, dst []float64, X mat.Matrix) error {
	r, _ := X.Dims()
	return parallel.ForBlocksContext(ctx, (r+crossBlock-1)/crossBlock, func() func(b int) {
		var s crossScratch
		return func(b int) {
			lo, hi := b*crossBlock, min((b+1)*crossBlock, r)
			c.rows(dst[lo*c.m:hi*c.m], csr.Rows(X, lo, hi), &s)
		}
	})
}

// settle sets α = R⁻¹ w after w changed (Nyström map only).
func (m *model) settle() {
	if m.ny == nil {
		return
	}
	if len(m.alpha) != len(m.w) {
		m.alpha = make([]float64, len(m.w))
	}
	m.ny.Weights(m.alpha, m.w) // a back substitution in a fixed order
}

// nyRows is the rows whose kernel values against the landmarks one step
// of the Nyström sum or score holds: about 2¹⁸ values (2 MiB), at least
// 16 rows, at most 1,024.
func (m *model) nyRows() int { return max(16, min(1024, (1<<18)/max(m.ny.Dim(), 1))) }

// nyScore writes −k_m(y)ᵀα for the rows y of X, blocks of crossBlock
// rows on every core (landmarkCross), and returns ctx.Err() soon after
// ctx ends. Each row's kernel values and dot product are computed alone,
// so a score does not depend on the block its row is in.
func (m *model) nyScore(ctx context.Context, dst []float64, X mat.Matrix) error {
	n, _ := X.Dims()
	M := m.ny.Dim()
	nb := (n + crossBlock - 1) / crossBlock
	return parallel.ForBlocksContext(ctx, nb, func() func(b int) {
		var s crossScratch
		kx := make([]float64, crossBlock*M)
		return func(b int) {
			lo, hi := b*crossBlock, min((b+1)*crossBlock, n)
			m.cross.rows(kx, csr.Rows(X, lo, hi), &s)
			for i := lo; i < hi; i++ {
				dst[i] = -floats.Dot(kx[(i-lo)*M:(i-lo+1)*M], m.alpha)
			}
		}
	})
}

// nySum returns Σ_i z(x_i) = R⁻ᵀ Σ_i k_r(x_i) over the training
// rows in one pass: the kernel rows (nyRows at a time, on every core) are
// added in the rows' order, so the sum depends neither on how the source
// cuts its chunks nor on the core count.
func (m *model) nySum(ctx context.Context, f *method.Fitting, report func(done int)) ([]float64, error) {
	M := m.ny.Dim()
	acc := make([]float64, M)
	R := m.nyRows()
	kx := make([]float64, R*M)
	err := f.Scan(ctx, m.scanRows(), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		for i0 := 0; i0 < r; i0 += R {
			i1 := min(i0+R, r)
			if err := m.cross.crossPar(ctx, kx, csr.Rows(X, i0, i1)); err != nil {
				return err
			}
			for i := range i1 - i0 {
				floats.Add(acc, kx[i*M:(i+1)*M])
			}
		}
		report(lo + r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sum := make([]float64, len(acc))
	m.ny.FromKernelRow(sum, acc) // a forward substitution in a fixed order
	return sum, nil
}
