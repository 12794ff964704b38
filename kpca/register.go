package kpca

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"gonum.org/v1/gonum/mat"
)

// stateVersion is the version of the saved state (detector.Method.Version).
const stateVersion = 1

func init() {
	detector.Register(detector.Method{
		Name:    "kpca",
		Summary: "kernel PCA; score = squared reconstruction error of the centred φ(x) in feature space (exact or Nyström)",
		Version: stateVersion,
		Params: []detector.Param{
			{Name: "kernel", Default: "rbf", Help: "rbf, laplacian, poly (degree 3, coef0 1) or linear"},
			{Name: "gamma", Default: "scale", Help: "kernel γ > 0, or scale = 1/(d·Var(X))"},
			{Name: "components", Default: "50", Help: "number of principal components (at most n−1); 0 when variance is set"},
			{Name: "variance", Default: "0", Help: "if in (0, 1]: keep the fewest components explaining this share of the variance"},
			{Name: "method", Default: "exact", Help: "exact (eigendecomposition of the n×n centred Gram matrix) or nystrom"},
			{Name: "landmarks", Default: "500", Help: "nystrom: number of landmark rows"},
			{Name: "seed", Default: "0", Help: "seed of the landmark draw and the Lanczos start"},
			{Name: "contamination", Default: "0.1", Help: "share of training rows above the threshold, in (0, 0.5]"},
		},
		New: func(p *detector.Params) (detector.Detector, error) {
			var cfg Config
			cfg.Kernel = p.Choice("kernel", "rbf", "rbf", "gaussian", "laplacian", "poly", "polynomial", "linear")
			cfg.Gamma = p.PositiveOr("gamma", "scale")
			cfg.Variance = p.Float("variance", 0)
			p.Check(cfg.Variance >= 0 && cfg.Variance <= 1, "variance", "must be in (0, 1], or 0 to use components")
			defComp := DefaultComponents
			if cfg.Variance > 0 {
				defComp = 0
			}
			cfg.Components = p.Int("components", defComp)
			p.Check(cfg.Components >= 0, "components", "must be ≥ 1")
			p.Check(cfg.Components == 0 || cfg.Variance == 0, "components", "set components or variance, not both")
			switch strings.ToLower(p.Choice("method", "exact", "exact", "nystrom")) {
			case "nystrom":
				cfg.Method = Nystrom
			}
			cfg.Landmarks = p.Int("landmarks", DefaultLandmarks)
			p.Check(cfg.Landmarks >= 1, "landmarks", "must be ≥ 1")
			seed := p.Uint64("seed", 0)
			cfg.Src = rand.NewPCG(seed, seed)
			cfg.Contamination = p.Float("contamination", 0.1)
			if err := p.Err(); err != nil {
				return nil, err
			}
			if cfg.Components == 0 && cfg.Variance == 0 {
				return nil, fmt.Errorf("kpca: components must be ≥ 1")
			}
			return New(cfg)
		},
	})
}

type state struct {
	Kernel    string
	Gamma     float64
	D         int
	Vals      []float64
	Explained float64
	Threshold float64
	// exact
	N       int
	X       []float64
	RowMean []float64
	Grand   float64
	Proj    []float64 // rows × max(q, 1)
	// Nyström
	Landmarks []float64 // m × d
	ZMean     []float64
}

func flat(m *mat.Dense) []float64 {
	r, c := m.Dims()
	out := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		out = append(out, m.RawRowView(i)...)
	}
	return out
}

// MarshalBinary encodes the fitted model: for the exact method the training
// rows, their kernel row means and the projection U Λ^{-1/2}; for Nyström
// the landmarks, the mean feature vector and the principal axes.
func (p *KPCA) MarshalBinary() ([]byte, error) {
	if p.proj == nil {
		return nil, detector.ErrNotFitted
	}
	s := state{Kernel: p.cfg.Kernel, Gamma: p.gamma, D: p.d, Vals: p.vals, Explained: p.explained,
		Threshold: p.threshold, Proj: flat(p.proj)}
	if p.ny != nil {
		s.Landmarks = flat(mat.DenseCopyOf(p.ny.Landmarks))
		s.ZMean = p.zMean
	} else {
		s.N = len(p.rowMean)
		s.X = flat(p.x)
		s.RowMean = p.rowMean
		s.Grand = p.grand
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(s)
	return b.Bytes(), err
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// UnmarshalBinary restores a model written by MarshalBinary into a detector
// built with the same parameters. Inconsistent or non-finite state is an
// error.
func (p *KPCA) UnmarshalBinary(b []byte) error {
	var s state
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return fmt.Errorf("kpca: decoding state: %w", err)
	}
	bad := fmt.Errorf("kpca: invalid model state")
	if s.D < 1 || s.D > math.MaxInt32 || !(s.Gamma > 0) || math.IsNaN(s.Threshold) || !finite(s.Vals) || !finite(s.Proj) {
		return bad
	}
	for _, v := range s.Vals {
		if !(v > 0) {
			return bad
		}
	}
	kern, err := kernel.Parse(s.Kernel, s.Gamma, 1, 3)
	if err != nil || s.Kernel != p.cfg.Kernel {
		return bad
	}
	q := len(s.Vals)
	cols := max(q, 1)
	f := &KPCA{cfg: p.cfg, cont: p.cont, gamma: s.Gamma, kern: kern, d: s.D, vals: s.Vals, explained: s.Explained, threshold: s.Threshold}
	if p.cfg.Method == Nystrom {
		if len(s.Landmarks) == 0 || len(s.Landmarks)%s.D != 0 || !finite(s.Landmarks) || !finite(s.ZMean) {
			return bad
		}
		m := len(s.Landmarks) / s.D
		if len(s.ZMean) != m || len(s.Proj) != m*cols || q > m {
			return bad
		}
		ny, err := randfeat.NewNystrom(kern, mat.NewDense(m, s.D, s.Landmarks))
		if err != nil {
			return bad
		}
		f.ny, f.zMean, f.proj = ny, s.ZMean, mat.NewDense(m, cols, s.Proj)
	} else {
		n := s.N
		if n < 2 || n > math.MaxInt32 || len(s.X) != n*s.D || len(s.RowMean) != n || len(s.Proj) != n*cols || q > n ||
			!finite(s.X) || !finite(s.RowMean) || math.IsNaN(s.Grand) || math.IsInf(s.Grand, 0) {
			return bad
		}
		f.x, f.rowMean, f.grand, f.proj = mat.NewDense(n, s.D, s.X), s.RowMean, s.Grand, mat.NewDense(n, cols, s.Proj)
	}
	*p = *f
	return nil
}
