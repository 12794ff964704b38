package kpca

import (
	"fmt"
	"math"
	"runtime"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"gonum.org/v1/gonum/mat"
)

// stateVersion is the version of the saved state (detector.Method.Version).
const stateVersion = 1

func init() {
	detector.RegisterLegacy(detector.Info{
		Name:    "kpca",
		Summary: "kernel PCA; score = squared reconstruction error of the centred φ(x) in feature space (exact or Nyström)",
		Version: stateVersion,
		MinRows: 2,
		Lighter: map[string]string{"method": "nystrom"},
	}, New, memory)
}

// memory estimates the peak bytes of a fit (exact: the n × n Gram matrix,
// the copy of the rows the model keeps and eigenBytes' bound on the
// eigensolver's; Nyström: the n × m features, their centred copy and the
// m × m covariance) or a score (the kernel block of 512 rows against the
// training rows or landmarks).
func memory(p *KPCA, op detector.Op, s detector.Size) float64 {
	n, d := float64(s.Rows), float64(s.Cols)
	if op == detector.ScoreOp {
		if p.ny != nil { // per block: the kernel against the landmarks, z, z − z̄, its projection
			return 8*n + 4*8*scoreRows*float64(len(p.zMean))
		}
		// One kernel block against the training rows, reused by every
		// step, and half as much again for what kernel.Cross and the
		// loaded model leave alongside (measured: peak/estimate 1.12 with
		// one block, 0.60 with the three the estimate counted from before
		// the block stopped being centred in a copy). Each step's
		// kernel.Cross also copies the training rows twice (centred for
		// the RBF distance, and transposed from 1,024 rows on) and the
		// block's rows once: at d = 200 these were 6.4 MB of a 2,000-row
		// score the estimate had left out (peaks 19.7–26.1 MB against
		// 15.5 MB; now 22.7 MB).
		nt := float64(len(p.rowMean))
		return 8*n + 1.5*8*scoreRows*nt + 8*d*(2*nt+scoreRows)
	}
	if p.cfg.Method == Nystrom {
		// The landmarks; z, z − z̄ and the projection of the training
		// rows; then the larger of the map's construction
		// (randfeat.NystromBytes) and the m × m covariance with its block
		// scratch and its eigensolver.
		mi := min(p.cfg.Landmarks, s.Rows)
		qi := p.cfg.Components
		if qi == 0 {
			qi = int(math.Ceil(p.cfg.Variance * float64(mi)))
		}
		qi = min(qi, mi)
		m, q := float64(mi), float64(qi)
		return 8*(m*d+2*n*m+n*q+2*n) + max(float64(randfeat.NystromBytes(mi, s.Cols)), 8*(m*m+covRows*m+float64(runtime.GOMAXPROCS(0))*covStrip*m)+float64(denseBytes(mi, qi, p.cfg.Variance)))
	}
	q := min(p.cfg.Components, max(s.Rows-1, 0))
	fit := 8*n*float64(paddedStride(s.Rows)) + 8*n*d + float64(eigenBytes(s.Rows, q, p.cfg.Variance))
	// Saving the model comes after the n × n matrix and the
	// eigensolver's buffers are freed: the training rows and their
	// projection, kept and encoded (SaveFactor). The variance rule's q is
	// at most what the eigensolver can return: every column below
	// denseMax rows, the Lanczos basis above.
	qs := q
	if q == 0 {
		qs = s.Rows
		if s.Rows > denseMax {
			_, qs = basisColumns(s.Rows, eigTarget{}.lanczosStart())
		}
	}
	save := (1 + detector.SaveFactor) * 8 * n * (d + float64(qs))
	return max(fit, save)
}

type state struct {
	Gamma     float64
	D         int
	Vals      []float64
	Explained float64
	// exact
	N       int
	X       []float64
	RowMean []float64
	Grand   float64
	Proj    []float64 // rows × max(q, 1)
	// Nyström
	Landmarks []float64 // m × d
	ZMean     []float64
	// The landmark map's K_mm^{-1/2} (m × m) and rank, so that loading
	// skips its eigendecomposition; absent from models saved before them,
	// which rebuild it from the landmarks.
	NystromNorm []float64
	NystromRank int
}

// flatT returns mᵀ's values row by row (one allocation, no transposed
// copy of m first).
func flatT(m *mat.Dense) []float64 {
	r, c := m.Dims()
	out := make([]float64, r*c)
	for i := 0; i < r; i++ {
		for j, v := range m.RawRowView(i) {
			out[j*r+i] = v
		}
	}
	return out
}

// MarshalBinary encodes the fitted model: for the exact method the training
// rows, their kernel row means and the projection U Λ^{-1/2}; for Nyström
// the landmarks, the mean feature vector and the principal axes.
func (p *KPCA) MarshalBinary() ([]byte, error) {
	if !p.Fitted() {
		return nil, detector.ErrNotFitted
	}
	s := state{Gamma: p.gamma, D: p.d, Vals: p.vals, Explained: p.explained}
	if p.ny != nil {
		s.Proj = detector.RowMajor(p.proj)
		s.Landmarks = detector.RowMajor(mat.DenseCopyOf(p.ny.Landmarks))
		s.ZMean = p.zMean
		s.NystromNorm, s.NystromRank = detector.RowMajor(p.ny.Norm), p.ny.Rank()
	} else {
		s.N = len(p.rowMean)
		s.Proj = flatT(p.pt) // rows × max(q, 1), as saved before the model kept it transposed
		s.X = detector.RowMajor(p.x)
		s.RowMean = p.rowMean
		s.Grand = p.grand
	}
	return detector.EncodeState("kpca", s)
}

// UnmarshalBinary restores a model written by MarshalBinary into a detector
// built with the same parameters. Inconsistent or non-finite state is an
// error.
func (p *KPCA) UnmarshalBinary(b []byte) error {
	var s state
	if err := detector.DecodeState("kpca", b, &s); err != nil {
		return err
	}
	bad := fmt.Errorf("kpca: invalid model state")
	if s.D < 1 || s.D > math.MaxInt32 || !(s.Gamma > 0 || p.cfg.Kernel.Kind == "linear") || !detector.Finite(s.Vals, s.Proj) {
		return bad
	}
	if err := p.CheckStateDim(s.D); err != nil {
		return err
	}
	for _, v := range s.Vals {
		if !(v > 0) {
			return bad
		}
	}
	kern, err := p.spec().New(s.Gamma)
	if p.cfg.Kernel.Kind == "linear" {
		kern, err = kernel.Linear{}, nil
	}
	if err != nil {
		return bad
	}
	q := len(s.Vals)
	cols := max(q, 1)
	f := &KPCA{Base: p.Base, cfg: p.cfg, gamma: s.Gamma, kern: kern, d: s.D, vals: s.Vals, explained: s.Explained}
	if p.cfg.Method == Nystrom {
		if len(s.Landmarks) == 0 || len(s.Landmarks)%s.D != 0 || !detector.Finite(s.Landmarks, s.ZMean) {
			return bad
		}
		m := len(s.Landmarks) / s.D
		if len(s.ZMean) != m || len(s.Proj) != m*cols || q > m {
			return bad
		}
		lm := mat.NewDense(m, s.D, s.Landmarks)
		var ny *randfeat.Nystrom
		if s.NystromNorm != nil {
			if len(s.NystromNorm) != m*m {
				return bad
			}
			ny, err = randfeat.RestoreNystrom(kern, lm, mat.NewDense(m, m, s.NystromNorm), s.NystromRank)
		} else {
			ny, err = randfeat.NewNystrom(kern, lm)
		}
		if err != nil {
			return bad
		}
		f.ny, f.zMean, f.proj = ny, s.ZMean, mat.NewDense(m, cols, s.Proj)
	} else {
		n := s.N
		if n < 2 || n > math.MaxInt32 || len(s.X) != n*s.D || len(s.RowMean) != n || len(s.Proj) != n*cols || q > n ||
			!detector.Finite(s.X, s.RowMean) || math.IsNaN(s.Grand) || math.IsInf(s.Grand, 0) {
			return bad
		}
		f.x, f.rowMean, f.grand, f.pt = mat.NewDense(n, s.D, s.X), s.RowMean, s.Grand, transposed(mat.NewDense(n, cols, s.Proj))
	}
	*p = *f
	return nil
}
