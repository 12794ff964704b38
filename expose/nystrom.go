package expose

import (
	"context"
	"fmt"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
)

// The Nyström map (map=nystrom): z(x) = K_mm^{-1/2} k_m(x) on m landmarks
// drawn uniformly from the training rows (randfeat.Nystrom). The embedding
// w = (1/n) Σ z(x_i) lives in those m coordinates as it does for the
// random maps, so the SGD solver, its projection and Theorem 1 are
// unchanged (‖z(x)‖² = k_m(x)ᵀ K_mm⁺ k_m(x) ≤ k(x, x) = 1). But
//
//	⟨z(y), w⟩ = k_m(y)ᵀ K_mm^{-1/2} w = k_m(y)ᵀ α,   α = K_mm^{-1/2} w,
//
// so scoring needs only the m kernel values of a row and α, fixed at fit:
// O(m·d) per row, not the O(m·d + m²) of the features. The batch sum
// likewise adds the kernel rows k_m(x_i) and multiplies once by
// K_mm^{-1/2} at the end.

// Nystrom is the name of the Nyström feature map.
const Nystrom = "nystrom"

// DefaultLandmarks is the default landmark count m of map=nystrom (capped
// at the rows a fit draws them from). The rule: K_mm's eigendecomposition
// costs O(m³) (about 0.1, 0.4 and 3–4 s at m = 500, 1,000 and 2,000 on
// this machine, randfeat.NewNystromContext), a row's score m kernel
// values, half the cosines of the random map's default D = 2,000; issue
// 35's held-out measurement put 500 landmarks below the exact embedding's
// average precision (.671 against .695) and 2,000 at it, so the default
// sits between the two at a tenth of 2,000's decomposition time.
const DefaultLandmarks = 1000

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
// gamma (stage "landmarks": 0 then 1 of 1 around the eigendecomposition)
// and returns a model on it with a zero embedding.
func (d *EXPoSE) newNystromModel(ctx context.Context, f *method.Fitting, gamma float64, L *mat.Dense) (*model, error) {
	f.Report("landmarks", 0, 1)
	ny, err := randfeat.NewNystromContext(ctx, d.kern(gamma), L)
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
	return &model{fm: ny, ny: ny, gamma: gamma, reg: newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, ny),
		w: make([]float64, m), alpha: make([]float64, m), chunk: d.cfg.ChunkRows}
}

// normTimes sets dst = K_mm^{-1/2} v (the map's symmetric Norm), a dot
// product per entry in order, so that it is the same bits on every
// machine and core count.
func normTimes(dst []float64, ny *randfeat.Nystrom, v []float64) {
	for i := range dst {
		dst[i] = floats.Dot(ny.Norm.RawRowView(i), v)
	}
}

// settle sets α = K_mm^{-1/2} w after w changed (Nyström map only).
func (m *model) settle() {
	if m.ny == nil {
		return
	}
	if len(m.alpha) != len(m.w) {
		m.alpha = make([]float64, len(m.w))
	}
	normTimes(m.alpha, m.ny, m.w)
}

// nyRows is the rows whose kernel values against the landmarks one step
// of the Nyström sum or score holds: about 2¹⁸ values (2 MiB), at least
// 16 rows, at most 1,024.
func (m *model) nyRows() int { return max(16, min(1024, (1<<18)/max(m.ny.Dim(), 1))) }

// nyScore writes −k_m(y)ᵀα for the rows y of X, nyRows rows at a time
// (kernel.Cross on every core), and returns ctx.Err() between blocks once
// ctx is done. Each row's kernel values and dot product are computed
// alone, so a score does not depend on the block its row is in.
func (m *model) nyScore(ctx context.Context, dst []float64, X mat.Matrix) error {
	n, _ := X.Dims()
	R := m.nyRows()
	var kx mat.Dense
	for lo := 0; lo < n; lo += R {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+R, n)
		k := m.crossInto(&kx, csr.Rows(X, lo, hi))
		for i := lo; i < hi; i++ {
			dst[i] = -floats.Dot(k.RawRowView(i-lo), m.alpha)
		}
	}
	return ctx.Err()
}

// crossInto sets buf's first rows to K(X, L), the kernel values of the
// rows of X against the landmarks.
func (m *model) crossInto(buf *mat.Dense, X mat.Matrix) *mat.Dense {
	r, _ := X.Dims()
	k := chunkBuf(buf, r, m.ny.Dim())
	kernel.Cross(k, m.ny.K, X, m.ny.Landmarks)
	return k
}

// nySum returns Σ_i z(x_i) = K_mm^{-1/2} Σ_i k_m(x_i) over the training
// rows in one pass: the kernel rows are added in the rows' order, so the
// sum does not depend on how the source cuts its chunks.
func (m *model) nySum(ctx context.Context, f *method.Fitting, report func(done int)) ([]float64, error) {
	acc := make([]float64, m.ny.Dim())
	R := m.nyRows()
	var kx mat.Dense
	err := f.Scan(ctx, m.scanRows(), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		for i0 := 0; i0 < r; i0 += R {
			if err := ctx.Err(); err != nil {
				return err
			}
			i1 := min(i0+R, r)
			k := m.crossInto(&kx, csr.Rows(X, i0, i1))
			for i := range i1 - i0 {
				floats.Add(acc, k.RawRowView(i))
			}
		}
		report(lo + r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sum := make([]float64, len(acc))
	normTimes(sum, m.ny, acc)
	return sum, nil
}
