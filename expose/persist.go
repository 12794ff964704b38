package expose

import (
	"errors"
	"fmt"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/randfeat"
	"gonum.org/v1/gonum/mat"
)

// state is the saved form of a fitted detector. Every cosine map in
// randfeat (RFF and ORF alike) is z(x) = √(2/D) cos(Wx + b), so the map is
// saved as its frequencies W (D × d, row-major) and phases b, and restored
// as a randfeat.Fourier with those arrays.
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
}

// cosineMap is what a saveable feature map provides.
type cosineMap interface {
	Frequencies() (W *mat.Dense, b []float64)
}

// MarshalBinary encodes the fitted model.
func (d *EXPoSE) MarshalBinary() ([]byte, error) {
	if !d.Fitted() {
		return nil, detector.ErrNotFitted
	}
	cm, ok := d.fmap.(cosineMap)
	if !ok {
		return nil, fmt.Errorf("expose: feature map %T cannot be saved", d.fmap)
	}
	W, b := cm.Frequencies()
	return detector.EncodeState("expose", state{Gamma: d.gamma, Dim: d.Dim(), W: detector.RowMajor(W), B: b, Embedding: d.w, Mean: d.savedMean(), N: d.n})
}

// UnmarshalBinary restores a model written by MarshalBinary, checking that
// its arrays are consistent with each other and with the configuration.
func (d *EXPoSE) UnmarshalBinary(data []byte) error {
	var s state
	if err := detector.DecodeState("expose", data, &s); err != nil {
		return err
	}
	D := len(s.B)
	switch {
	case s.Dim < 1 || D < 1:
		return errors.New("expose: model has no features")
	case D != d.cfg.Features:
		return fmt.Errorf("expose: model has %d features, its parameters say %d", D, d.cfg.Features)
	case len(s.W) != D*s.Dim || len(s.Embedding) != D || (s.Mean != nil && len(s.Mean) != D):
		return errors.New("expose: model arrays have inconsistent sizes")
	case !(s.Gamma > 0) || s.N < 1:
		return errors.New("expose: model has invalid scalars")
	}
	if !detector.Finite(s.W, s.B, s.Embedding, s.Mean) {
		return errors.New("expose: model holds non-finite values")
	}
	if err := d.CheckStateDim(s.Dim); err != nil {
		return err
	}
	d.gamma, d.n = s.Gamma, s.N
	d.fmap = &randfeat.Fourier{W: mat.NewDense(D, s.Dim, s.W), B: s.B}
	d.reg = newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, d.fmap)
	d.w, d.mean = s.Embedding, nil
	if d.cfg.Solver == Batch {
		d.mean = s.Mean
		if d.mean == nil {
			d.mean = d.w // no regulariser: the embedding is the mean
		}
	}
	return nil
}

// savedMean is the mean to save beside the embedding: only when a
// regulariser made them differ.
func (d *EXPoSE) savedMean() []float64 {
	if d.mean == nil || !d.reg.active() {
		return nil
	}
	return d.mean
}
