package expose

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

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
// Fit; cfg.Solver must be batch. A Nyström map (map=nystrom) is built on
// landmark rows: plan it with PlanNystrom and NystromMap.
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
	if d.cfg.Map == Nystrom {
		return nil, nil, errors.New("expose: map nystrom is planned on its landmark rows (PlanNystrom, NystromMap)")
	}
	fm = d.drawMap(dim, gamma)
	if lim := d.thresholdCap(); n > lim {
		rows = method.SampleIndices(d.rng, n, lim)
	}
	return fm, rows, nil
}

// PlanNystrom is PlanBatch for map=nystrom: it returns what a batch fit of
// n rows of dim columns at width gamma draws from cfg.Src, in Fit's order:
// the landmarks, min(Landmarks, n) training rows (0-based, ascending, in
// the rows' global order), then the threshold rows (nil when every row is
// scored). Build the map on the landmark rows, scaled and in that order,
// with NystromMap: a fit of the same rows in process, with a fresh source
// of the same seed, draws the same rows and builds the same map.
func PlanNystrom(cfg Config, n, dim int, gamma float64) (landmarks, rows []int, err error) {
	d, err := New(cfg)
	if err != nil {
		return nil, nil, err
	}
	switch {
	case d.cfg.Solver != Batch:
		return nil, nil, fmt.Errorf("expose: a distributed fit needs the batch solver, not %s", d.cfg.Solver)
	case d.cfg.Map != Nystrom:
		return nil, nil, fmt.Errorf("expose: map %s is planned by PlanBatch", d.cfg.Map)
	case n < 1 || dim < 1:
		return nil, nil, &detector.EmptyError{Rows: n, Cols: dim}
	case !(gamma > 0) || math.IsInf(gamma, 0):
		return nil, nil, fmt.Errorf("expose: gamma %v must be positive and finite", gamma)
	}
	landmarks = method.SampleIndices(d.rng, n, d.landmarkCount(n))
	if lim := d.thresholdCap(); n > lim {
		rows = method.SampleIndices(d.rng, n, lim)
	}
	return landmarks, rows, nil
}

// NystromMap builds the Nyström map of cfg's kernel at width gamma on the
// landmark rows L (scaled, in PlanNystrom's order), as a fit builds it: K_mm's
// pivoted Cholesky factorisation, which returns ctx.Err() once ctx is done.
func NystromMap(ctx context.Context, cfg Config, L mat.Matrix, gamma float64) (*randfeat.Nystrom, error) {
	d, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if !(gamma > 0) || math.IsInf(gamma, 0) {
		return nil, fmt.Errorf("expose: gamma %v must be positive and finite", gamma)
	}
	ny, err := randfeat.NewNystromCholesky(ctx, d.kern(gamma), denseCopy(L))
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("expose: %w", err)
	}
	return ny, err
}

// NystromEmbedding returns the mean embedding of n training rows whose
// kernel rows k_m(x_i) against the landmarks of ny sum to sum, as a batch
// fit computes it: w = (R⁻ᵀ sum)/n. Summing the kernel rows, not the
// features, and solving once is what keeps a distributed fit within
// rounding of the fit in process: the solves with R, whose inverse's
// entries grow as its smallest kept pivot falls, round differently row
// by row.
func NystromEmbedding(ny *randfeat.Nystrom, sum []float64, n int) []float64 {
	w := make([]float64, len(sum))
	ny.FromKernelRow(w, sum)
	floats.Scale(1/float64(n), w)
	return w
}

// NystromKernelRows sets dst (allocated when empty, else rows × m) to the
// kernel values k_m(x) of the rows of X against the landmarks of ny,
// computed as a fit computes them, so that a distributed fit summing them
// for NystromEmbedding adds the same values.
func NystromKernelRows(dst *mat.Dense, ny *randfeat.Nystrom, X mat.Matrix) {
	r, _ := X.Dims()
	m := ny.Dim()
	if dst.IsEmpty() {
		dst.ReuseAs(r, m)
	}
	if dr, dc := dst.Dims(); dr != r || dc != m {
		panic(fmt.Sprintf("expose: NystromKernelRows dst is %d × %d, want %d × %d", dr, dc, r, m))
	}
	raw := dst.RawMatrix()
	if raw.Stride == m {
		_ = newLandmarkCross(ny).crossPar(context.Background(), raw.Data[:r*m], X) // no ctx: cannot fail
		return
	}
	tmp := make([]float64, r*m)
	_ = newLandmarkCross(ny).crossPar(context.Background(), tmp, X)
	dst.Copy(mat.NewDense(r, m, tmp))
}

// FromEmbedding returns a fitted detector with scale stage stage (nil for
// rule none; the rows were scaled with it before they were mapped), feature
// map fm, embedding w (the mean of φ over the n training rows, from which
// the configured regulariser's solution is taken), kernel width gamma and
// decision threshold. cfg must be the configuration the map was planned with (its
// Features must equal fm.Dim()); fm must be a cosine map (randfeat.Fourier
// or Orthogonal) so the detector can be saved, or for map=nystrom the
// *randfeat.Nystrom of NystromMap (at most Landmarks landmarks, dense,
// built at width gamma).
func FromEmbedding(cfg Config, stage *scale.Stage, fm randfeat.Map, w []float64, n int, gamma, threshold float64) (*EXPoSE, error) {
	d, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if ny, ok := fm.(*randfeat.Nystrom); ok && d.cfg.Map == Nystrom {
		return d.fromNystrom(stage, ny, w, n, gamma, threshold)
	}
	switch {
	case fm == nil:
		return nil, errors.New("expose: no feature map")
	case d.cfg.Map == Nystrom:
		return nil, fmt.Errorf("expose: map nystrom needs a *randfeat.Nystrom, not %T", fm)
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

// fromNystrom is FromEmbedding for map=nystrom.
func (d *EXPoSE) fromNystrom(stage *scale.Stage, ny *randfeat.Nystrom, w []float64, n int, gamma, threshold float64) (*EXPoSE, error) {
	_, dense := ny.Landmarks.(*mat.Dense)
	switch {
	case ny.Dim() > d.cfg.Landmarks || !dense || ny.Factor == nil:
		return nil, fmt.Errorf("expose: the Nyström map has %d landmarks, the configuration at most %d, dense, in Cholesky form (NystromMap)", ny.Dim(), d.cfg.Landmarks)
	case len(w) != ny.Dim():
		return nil, fmt.Errorf("expose: embedding has %d entries, the feature map %d", len(w), ny.Dim())
	case n < 1:
		return nil, &detector.EmptyError{Rows: n, Cols: ny.InputDim()}
	case !(gamma > 0) || math.IsInf(gamma, 0) || math.IsNaN(threshold):
		return nil, errors.New("expose: invalid gamma or threshold")
	case ny.K != d.kern(gamma):
		return nil, fmt.Errorf("expose: the Nyström map's kernel %v is not the configuration's at gamma %v", ny.K, gamma)
	case !method.Finite(w):
		return nil, errors.New("expose: embedding holds non-finite values")
	}
	m := d.nystromModel(ny, gamma)
	m.mean = append([]float64(nil), w...)
	m.w, m.n = regularized(m.reg, m.mean), n
	m.settle()
	if err := d.Adopt(m, stage, ny.InputDim(), threshold); err != nil {
		return nil, err
	}
	return d, nil
}
