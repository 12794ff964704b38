package expose

import (
	"errors"
	"fmt"
	"math"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/randfeat"
	"github.com/kernelad/anomaly/scale"
)

// This file is the seam for fits that run outside this process (the Beam
// module in beam/): the embedding is a sum over rows, so any engine that can
// add vectors can compute it, provided it uses the feature map and the
// threshold sample that Fit would have drawn. PlanBatch hands those out,
// drawn from cfg.Src exactly as Fit draws them; FromEmbedding turns the
// engine's result back into a fitted EXPoSE that saves and scores like one
// fitted in process.

// PlanBatch returns what a batch fit of n rows of dim columns at kernel width
// gamma draws from cfg.Src, in Fit's order: the feature map, then the
// training rows (0-based, ascending, in the rows' global order) scored to
// set the threshold. rows is nil when every row is scored (n ≤
// ThresholdRows, or ThresholdRows < 0). A fit of the same rows in process,
// with a fresh source of the same seed, draws the same map and rows. gamma
// must be resolved (the width rule on the scaled rows, as Fit resolves it:
// it draws nothing under the scale rules). cfg.Src advances as it does in
// Fit; cfg.Solver must be batch.
func PlanBatch(cfg Config, n, dim int, gamma float64) (fm randfeat.Map, rows []int, err error) {
	d, err := New(cfg)
	if err != nil {
		return nil, nil, err
	}
	if d.cfg.Solver != Batch {
		return nil, nil, fmt.Errorf("expose: a distributed fit needs the batch solver, not %s", d.cfg.Solver)
	}
	if n < 1 || dim < 1 {
		return nil, nil, &detector.EmptyError{Rows: n, Cols: dim}
	}
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return nil, nil, fmt.Errorf("expose: gamma %v must be positive and finite", gamma)
	}
	fm = d.drawMap(dim, gamma)
	if lim := d.thresholdCap(); n > lim {
		rows = method.SampleIndices(d.rng, n, lim)
	}
	return fm, rows, nil
}

// FromEmbedding returns a fitted detector with scale stage stage (nil for
// rule none; the rows were scaled with it before they were mapped), feature
// map fm, embedding w (the mean of φ over the n training rows, from which
// the configured regulariser's solution is taken), kernel width gamma and
// decision threshold. cfg must be the configuration the map was planned with (its
// Features must equal fm.Dim()); fm must be a cosine map (randfeat.Fourier
// or Orthogonal) so the detector can be saved.
func FromEmbedding(cfg Config, stage *scale.Stage, fm randfeat.Map, w []float64, n int, gamma, threshold float64) (*EXPoSE, error) {
	d, err := New(cfg)
	if err != nil {
		return nil, err
	}
	switch {
	case fm == nil:
		return nil, errors.New("expose: no feature map")
	case fm.Dim() != d.cfg.Features:
		return nil, fmt.Errorf("expose: feature map has %d features, the configuration says %d", fm.Dim(), d.cfg.Features)
	case len(w) != fm.Dim():
		return nil, fmt.Errorf("expose: embedding has %d entries, the feature map %d", len(w), fm.Dim())
	case n < 1:
		return nil, &detector.EmptyError{Rows: n, Cols: fm.InputDim()}
	case !(gamma > 0) || math.IsInf(gamma, 0) || math.IsNaN(threshold):
		return nil, errors.New("expose: invalid gamma or threshold")
	}
	if _, ok := fm.(cosineMap); !ok {
		return nil, fmt.Errorf("expose: feature map %T cannot be saved", fm)
	}
	if !method.Finite(w) {
		return nil, errors.New("expose: embedding holds non-finite values")
	}
	mean := append([]float64(nil), w...)
	reg := newRegularizer(d.cfg.Regularizer, d.cfg.Lambda, fm)
	m := &model{fm: fm, gamma: gamma, reg: reg, mean: mean, w: regularized(reg, mean), n: n, chunk: d.cfg.ChunkRows}
	if err := d.Adopt(m, stage, fm.InputDim(), threshold); err != nil {
		return nil, err
	}
	return d, nil
}
