package expose

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/randfeat"
)

// state is the saved form of a fitted model. Every cosine map in randfeat
// (RFF and ORF alike) is z(x) = √(2/D) cos(Wx + b), so the map is saved as
// its frequencies W (D × d, row-major) and phases b, and restored as a
// randfeat.Fourier with those arrays. Its fields are the file format.
type state struct {
	Gamma     float64
	Dim       int
	W         []float64
	B         []float64
	Embedding []float64
	// Mean is the plain mean of φ when a regulariser made the embedding
	// differ from it (batch solver), so PartialFit can go on from it.
	Mean []float64
	N    int
	// Landmarks (r × Dim, row-major, scaled as the rows the model scores,
	// the ones the pivoted Cholesky factorisation kept in its order) and
	// Factor (its R, r × r upper triangular: the r(r+1)/2 entries on and
	// right of the diagonal, row by row) are the Nyström
	// map of map=nystrom, whose W and B are then empty; the embedding has
	// r entries. (Version 2 held the eigen form's K_mm^{-1/2} and rank
	// instead: its files are refused by version, and its layout by
	// DecodeState.)
	Landmarks []float64
	Factor    []float64
}

// cosineMap is what a saveable feature map provides.
type cosineMap interface {
	Frequencies() (W *mat.Dense, b []float64)
}

// MarshalBinary encodes the fitted model.
func (m *model) MarshalBinary() ([]byte, error) {
	var mean []float64
	if m.reg.active() {
		mean = m.mean // only when a regulariser made it differ from w
	}
	if m.ny != nil {
		return method.EncodeState("expose", state{Gamma: m.gamma, Dim: m.fm.InputDim(), Embedding: m.w, Mean: mean, N: m.n,
			Landmarks: method.RowMajor(m.ny.Landmarks.(*mat.Dense)), Factor: packUpper(m.ny.Factor)})
	}
	cm, ok := m.fm.(cosineMap)
	if !ok {
		return nil, fmt.Errorf("expose: feature map %T cannot be saved", m.fm)
	}
	W, b := cm.Frequencies()
	return method.EncodeState("expose", state{Gamma: m.gamma, Dim: m.fm.InputDim(), W: method.RowMajor(W), B: b, Embedding: m.w, Mean: mean, N: m.n})
}

// errState is the error of a saved state that no fit writes.
var errState = errors.New("expose: invalid model state")

// decode rebuilds a model written by MarshalBinary for dim columns
// (Hooks.Decode): D = len(B) features as the parameters say, W of D × dim
// values (compared by division, so no product of sizes read from the file
// can wrap), an embedding (and a mean, if any) of D values, every value
// finite, γ > 0 finite and N ≥ 1.
func (d *EXPoSE) decode(data []byte, dim int) (*model, error) {
	var s state
	if err := method.DecodeState("expose", data, &s); err != nil {
		return nil, err
	}
	if d.cfg.Map == Nystrom {
		return d.decodeNystrom(&s, dim)
	}
	D := len(s.B)
	switch {
	case D < 1 || s.Dim < 1:
		return nil, errors.New("expose: model has no features")
	case D != d.cfg.Features:
		return nil, fmt.Errorf("expose: model has %d features, its parameters say %d", D, d.cfg.Features)
	case s.Dim != dim:
		return nil, fmt.Errorf("expose: the state is for %d columns, the model's shared state for %d", s.Dim, dim)
	case len(s.W)%D != 0 || len(s.W)/D != s.Dim || len(s.Embedding) != D || (s.Mean != nil && len(s.Mean) != D) ||
		len(s.Landmarks) != 0 || len(s.Factor) != 0:
		return nil, errors.New("expose: model arrays have inconsistent sizes")
	case !(s.Gamma > 0) || math.IsInf(s.Gamma, 0) || s.N < 1:
		return nil, errState
	case !method.Finite(s.W, s.B, s.Embedding, s.Mean):
		return nil, errors.New("expose: model holds non-finite values")
	}
	fm := &randfeat.Fourier{W: mat.NewDense(D, s.Dim, s.W), B: s.B}
	m := &model{fm: fm, gamma: s.Gamma, reg: newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, fm), w: s.Embedding, n: s.N, chunk: d.cfg.ChunkRows}
	if d.cfg.Solver == Batch {
		m.mean = s.Mean
		if m.mean == nil {
			m.mean = m.w // no regulariser: the embedding is the mean
		}
	}
	return m, nil
}

// decodeNystrom rebuilds a Nyström model (map=nystrom) from its state for
// dim columns: m = len(Embedding) landmarks, 1 ≤ m ≤ Landmarks, of dim
// values each and the m(m+1)/2 entries of an upper triangular Factor with a positive
// diagonal (sizes compared by division, so that no product of sizes read
// from the file can wrap), no frequencies, every value finite, γ > 0
// finite and N ≥ 1. The map is restored from Factor
// (randfeat.RestoreNystromCholesky): no factorisation.
func (d *EXPoSE) decodeNystrom(s *state, dim int) (*model, error) {
	m := len(s.Embedding)
	switch {
	case m < 1 || s.Dim < 1:
		return nil, errors.New("expose: model has no landmarks")
	case m > d.cfg.Landmarks:
		return nil, fmt.Errorf("expose: model has %d landmarks, its parameters at most %d", m, d.cfg.Landmarks)
	case s.Dim != dim:
		return nil, fmt.Errorf("expose: the state is for %d columns, the model's shared state for %d", s.Dim, dim)
	case len(s.W) != 0 || len(s.B) != 0 || len(s.Landmarks)%m != 0 || len(s.Landmarks)/m != s.Dim ||
		len(s.Factor) != m*(m+1)/2 || (s.Mean != nil && len(s.Mean) != m):
		return nil, errors.New("expose: model arrays have inconsistent sizes")
	case !(s.Gamma > 0) || math.IsInf(s.Gamma, 0) || s.N < 1:
		return nil, errState
	case !method.Finite(s.Landmarks, s.Factor, s.Embedding, s.Mean):
		return nil, errors.New("expose: model holds non-finite values")
	}
	ny, err := randfeat.RestoreNystromCholesky(d.kern(s.Gamma), mat.NewDense(m, s.Dim, s.Landmarks), unpackUpper(s.Factor, m))
	if err != nil {
		return nil, fmt.Errorf("expose: %w", err)
	}
	md := d.nystromModel(ny, s.Gamma)
	md.w, md.n = s.Embedding, s.N
	if d.cfg.Solver == Batch {
		md.mean = s.Mean
		if md.mean == nil {
			md.mean = md.w
		}
	}
	md.settle()
	return md, nil
}

// packUpper returns the entries of the upper triangular R on and right of
// its diagonal, row by row: half of a saved Nyström model's bytes.
func packUpper(R *mat.Dense) []float64 {
	r, _ := R.Dims()
	out := make([]float64, 0, r*(r+1)/2)
	for i := 0; i < r; i++ {
		out = append(out, R.RawRowView(i)[i:]...)
	}
	return out
}

// unpackUpper is the r × r upper triangular matrix whose entries packUpper
// wrote to p (len(p) = r(r+1)/2).
func unpackUpper(p []float64, r int) *mat.Dense {
	R := mat.NewDense(r, r, nil)
	for i := 0; i < r; i++ {
		p = p[copy(R.RawRowView(i)[i:], p):]
	}
	return R
}
