package exposebeam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/expose"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func init() {
	registerTypes((*writeJSONFn)(nil), (*sampleFn)(nil), (*scoreSampleFn)(nil), (*writeModelFn)(nil),
		(*LandmarkAcc)(nil), (*landmarksFn)(nil), (*writeLandmarksFn)(nil))
}

// FitOptions configures a distributed EXPoSE fit.
type FitOptions struct {
	// Runner is the Beam runner: "direct", "prism", "dataflow", "flink", …
	// (the runner must be linked into the binary).
	Runner string
	// Input is a glob of shards (CSV with a header row, .npy, …) on any
	// filesystem registered with Beam (local paths, gs://, s3://).
	Input string
	// Out is the model file to write.
	Out string
	// Params are the expose parameters, exactly as 'anomaly fit --method
	// expose --set k=v' takes them (seed, features, gamma, …). The solver
	// must be batch.
	Params map[string]string
	// Label names a label column of the shards to drop ("" for none).
	Label string
}

// FitReport describes a finished fit.
type FitReport struct {
	Shards    int
	Rows      int64
	Cols      int64
	Gamma     float64
	Threshold int // training rows scored for the threshold
	// Merges is the number of MergeAccumulators calls of EmbedFn that added
	// two non-empty partial sums, as the runner's metrics report it (0 on the
	// direct runner, which does not lift combiners).
	Merges int64
}

// Fit runs the EXPoSE batch fit on the runner as two pipelines (three
// for map=nystrom):
//
//  1. statistics: read the shards, combine (MomentsFn) the rows of each
//     shard, the column count and the mean and M2 of all entries (for
//     gamma = scale and scale_scott), and write them where the launcher
//     reads them;
//  2. for map=nystrom only, landmarks: the launcher draws the landmark
//     rows and the threshold sample from the seed (expose.PlanNystrom, the
//     draws Fit makes), a pass gathers the landmark rows (landmarksFn), and
//     the launcher scales them and builds the map on them once
//     (expose.NystromMap: K_mm's pivoted Cholesky factorisation);
//  3. embedding: the launcher draws the feature map and the threshold
//     sample from the seed (expose.PlanBatch, the draws Fit makes); the map
//     travels inside EmbedFn, which combines the sum of φ over all rows; the
//     sampled training rows are scored with the embedding as a side input,
//     and one worker turns the embedding and the sample scores into a
//     detector (expose.FromEmbedding, threshold from detector.
//     ThresholdFromScores) and saves it with detector.Save, so the core
//     'anomaly score' reads the file.
func Fit(ctx context.Context, o FitOptions) (*FitReport, error) {
	if o.Out == "" || o.Input == "" {
		return nil, errors.New("exposebeam: fit needs an input glob and an output path")
	}
	params := o.Params
	if params == nil {
		params = map[string]string{}
	}
	cfg, err := expose.ConfigFromParams(params)
	if err != nil {
		return nil, err
	}
	if cfg.Map == "" { // the default map, as a fit in process resolves it
		d, err := expose.New(cfg)
		if err != nil {
			return nil, err
		}
		cfg.Map = d.Config().Map
	}
	if cfg.Solver != "" && cfg.Solver != expose.Batch {
		return nil, fmt.Errorf("exposebeam: solver %s cannot be distributed; use batch", cfg.Solver)
	}
	rule := cfg.Scale
	if rule == "" {
		rule = method.DefaultScale
	}
	if rule != scale.None && rule != scale.Standardize {
		return nil, fmt.Errorf("exposebeam: scale=%s needs per-column order statistics, which the distributed fit does not compute; use scale=standard or none", rule)
	}
	shards, err := ListShards(ctx, o.Input)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(shards))
	for i, sh := range shards {
		paths[i] = sh.Path
	}
	// Before any work: the model must not replace a shard, and its
	// directory must exist and be writable.
	if err := CheckOutput(o.Out, paths); err != nil {
		return nil, err
	}
	// The statistics pass leaves its result in a staging file beside the
	// model under a name no file had; it is removed after the pass.
	stats, err := newPending(o.Out, ".stats.json")
	if err != nil {
		return nil, err
	}
	defer stats.discard(ctx)

	// Pass 1: statistics.
	p1, s1 := beam.NewPipelineWithRoot()
	m := beam.Combine(s1.Scope("Moments"), &MomentsFn{Shards: int64(len(shards)), Paths: paths}, Read(s1, shards, o.Label, 0))
	beam.ParDo0(s1, &writeJSONFn{Path: stats.Temp}, m)
	if _, err := runPipeline(ctx, o.Runner, p1); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("statistics pipeline: %w", err)
	}
	var mom Moments
	if err := readJSON(ctx, stats.Temp, &mom); err != nil {
		return nil, err
	}
	stats.discard(ctx)
	n := mom.Rows()
	if n < 1 || mom.Cols < 1 {
		return nil, &detector.EmptyError{Rows: int(n), Cols: int(mom.Cols)}
	}
	columns, err := mom.Columns(paths)
	if err != nil {
		return nil, err
	}

	// The feature map and the threshold sample, drawn once from the seed.
	gamma := cfg.Kernel.Gamma
	if gamma == 0 {
		r := cfg.Kernel.Rule
		if r == "" {
			r = expose.DefaultWidthRule
		}
		if r != kernel.ScaleRule && r != kernel.ScaleScottRule {
			return nil, fmt.Errorf("exposebeam: gamma=%s cannot be distributed; use gamma=scale_scott, gamma=scale or a number", r)
		}
		gamma = mom.Gamma()
		if rule == scale.Standardize {
			gamma = mom.StandardGamma()
		}
		if r == kernel.ScaleScottRule { // the Spec.Width rule, from the moments' n and d
			gamma = kernel.ScaleScottGamma(gamma, int(n), int(mom.Cols))
		}
	}
	offsets := make([]int64, len(shards))
	for i := 1; i < len(shards); i++ {
		offsets[i] = offsets[i-1] + mom.ShardRows[i-1]
	}
	var stage *scale.Stage
	if rule == scale.Standardize {
		stage = mom.Stage()
	}
	var (
		fm   randfeat.Map
		rows []int
	)
	if cfg.Map == expose.Nystrom {
		fm, rows, err = planNystrom(ctx, o, cfg, shards, offsets, stage, int(n), int(mom.Cols), gamma)
	} else {
		fm, rows, err = expose.PlanBatch(cfg, int(n), int(mom.Cols), gamma)
	}
	if err != nil {
		return nil, err
	}
	ms, err := NewMapState(fm)
	if err != nil {
		return nil, err
	}
	if stage != nil {
		ms.Offset, ms.Divisor = stage.Offset, stage.Divisor
	}
	sample := make([]int64, len(rows))
	for i, r := range rows {
		sample[i] = int64(r)
	}
	sort.Slice(sample, func(i, j int) bool { return sample[i] < sample[j] })

	// Pass 2: embedding, threshold scores, model.
	p2, s2 := beam.NewPipelineWithRoot()
	// One block per shard: AddInput of a whole shard is long enough for
	// prism to see a slow bundle and split the remaining shards off to a
	// concurrent one (it splits only bundles that make no visible progress
	// for 100 ms); EmbedFn still maps ChunkRows rows at a time.
	blocks := Read(s2, shards, o.Label, 0)
	chunk := int64(cfg.ChunkRows)
	acc := beam.Combine(s2.Scope("Embedding"), &EmbedFn{Map: ms, Chunk: chunk}, blocks)
	sampled := beam.ParDo(s2.Scope("ThresholdSample"), &sampleFn{Offsets: offsets, Rows: sample, All: rows == nil}, blocks)
	scores := beam.ParDo(s2.Scope("ThresholdScores"), &scoreSampleFn{Map: ms, Chunk: chunk, Params: params, Gamma: gamma}, sampled, beam.SideInput{Input: acc})
	model, err := newPending(o.Out, "")
	if err != nil {
		return nil, err
	}
	defer model.discard(ctx)
	beam.ParDo0(s2.Scope("WriteModel"), &writeModelFn{Params: params, Out: model.Temp, Gamma: gamma, Map: ms, Columns: columns},
		beam.Impulse(s2), beam.SideInput{Input: acc}, beam.SideInput{Input: scores})
	res, err := runPipeline(ctx, o.Runner, p2)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("embedding pipeline: %w", err)
	}
	if err := model.commit(ctx, paths); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	var merges int64
	if res != nil {
		for _, c := range res.Metrics().AllMetrics().Counters() {
			if c.Namespace() == "exposebeam" && c.Name() == "embed_merges" {
				merges += c.Result()
			}
		}
	}
	nthr := len(rows)
	if rows == nil {
		nthr = int(n)
	}
	return &FitReport{Shards: len(shards), Rows: n, Cols: mom.Cols, Gamma: gamma, Threshold: nthr, Merges: merges}, nil
}

// writeJSONFn writes its input as JSON to Path.
type writeJSONFn struct{ Path string }

func (f *writeJSONFn) ProcessElement(ctx context.Context, m Moments) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return writeFile(ctx, f.Path, b)
}

// sampleFn keeps the rows of each block whose global index (shard offset +
// row) is in the sorted list Rows, or every row when All is set.
type sampleFn struct {
	Offsets []int64
	Rows    []int64
	All     bool
}

func (f *sampleFn) ProcessElement(b Block, emit func(Block)) error {
	if f.All {
		emit(b)
		return nil
	}
	if b.Shard < 0 || b.Shard >= int64(len(f.Offsets)) {
		return fmt.Errorf("exposebeam: block of unknown shard %d", b.Shard)
	}
	g0 := f.Offsets[b.Shard] + b.Start
	i := sort.Search(len(f.Rows), func(i int) bool { return f.Rows[i] >= g0 })
	out := Block{Shard: b.Shard, Start: -1, Cols: b.Cols}
	for ; i < len(f.Rows) && f.Rows[i] < g0+b.Rows; i++ {
		r := f.Rows[i] - g0
		out.X = append(out.X, b.X[r*b.Cols:(r+1)*b.Cols]...)
		out.Rows++
	}
	if out.Rows > 0 {
		emit(out)
	}
	return nil
}

// scoreSampleFn scores blocks against the embedding (a side input):
// −⟨φ(x), w⟩, w = Sum / N, as expose.EXPoSE.Score computes it. For a
// Nyström map it scores with the detector the model file will hold
// (expose.FromEmbedding of the embedding, its threshold not yet known),
// so the scores are those of the saved model, k_m(x)ᵀα.
type scoreSampleFn struct {
	Map    MapState
	Chunk  int64
	Params map[string]string
	Gamma  float64

	once sync.Once
	buf  mat.Dense
	fm   randfeat.Map
	det  *expose.EXPoSE
	err  error
}

func (f *scoreSampleFn) ProcessElement(b Block, acc EmbedAcc, emit func(float64)) error {
	f.once.Do(func() {
		if f.fm, f.err = f.Map.Map(); f.err != nil || !f.Map.nystrom() {
			return
		}
		f.det, f.err = assemble(f.Params, f.Map, f.fm, acc, f.Gamma, 0)
	})
	if f.err != nil {
		return f.err
	}
	if f.det != nil {
		s, err := f.det.Score(nil, b.Matrix())
		if err != nil {
			return fmt.Errorf("exposebeam: shard %d: %w", b.Shard, err)
		}
		for _, v := range s {
			emit(v)
		}
		return nil
	}
	if len(acc.Sum) != f.fm.Dim() || b.Cols != int64(f.fm.InputDim()) {
		return errors.New("exposebeam: embedding, feature map and rows disagree")
	}
	w := acc.Mean()
	return forChunks(f.fm, f.Map.stage(), b, int(f.Chunk), &f.buf, func(z *mat.Dense) {
		r, _ := z.Dims()
		for i := 0; i < r; i++ {
			emit(-floats.Dot(z.RawRowView(i), w))
		}
	})
}

// writeModelFn assembles the detector from the embedding and the threshold
// scores and saves it to Out, the launcher's staging file. Columns, when
// the shards have a header, are recorded in the model (detector.
// SetColumns) so that 'anomaly score' and 'anomaly-beam score' refuse data
// whose columns are others or in another order.
type writeModelFn struct {
	Params  map[string]string
	Out     string
	Gamma   float64
	Map     MapState
	Columns []string
}

func (f *writeModelFn) ProcessElement(ctx context.Context, _ []byte, acc EmbedAcc, scores func(*float64) bool) error {
	cfg, err := expose.ConfigFromParams(f.Params)
	if err != nil {
		return err
	}
	fm, err := f.Map.Map()
	if err != nil {
		return err
	}
	var s []float64
	var v float64
	for scores(&v) {
		s = append(s, v)
	}
	if len(s) == 0 || acc.N < 1 {
		return errors.New("exposebeam: no training rows reached the model")
	}
	probe, err := expose.New(cfg)
	if err != nil {
		return err
	}
	thr := method.ThresholdFromScores(s, probe.Config().Contamination)
	d, err := assemble(f.Params, f.Map, fm, acc, f.Gamma, thr)
	if err != nil {
		return err
	}
	if len(f.Columns) == int(f.Map.Cols) {
		// Names too long for a model file's header are left out, as
		// 'anomaly fit' does (it prints a note; a worker cannot).
		if err := detector.SetColumns(d, f.Columns); err != nil && !errors.Is(err, detector.ErrColumnsTooLong) {
			return err
		}
	}
	return writeTo(ctx, f.Out, func(w io.Writer) error { return detector.Save(w, d) })
}

func writeFile(ctx context.Context, path string, data []byte) error {
	return writeTo(ctx, path, func(w io.Writer) error { _, err := w.Write(data); return err })
}

// writeTo writes a staging file (newPending) through Beam's filesystem
// layer (gs://, …), or locally by opening the file the launcher created
// without O_CREATE: a pipeline still running after the launcher was
// interrupted and removed its staging files cannot leave one behind.
func writeTo(ctx context.Context, path string, fill func(io.Writer) error) error {
	write := func(w io.WriteCloser, err error) error {
		if err != nil {
			return err
		}
		if err := fill(w); err != nil {
			w.Close()
			return fmt.Errorf("writing %s: %w", path, err)
		}
		return w.Close()
	}
	if isLocal(path) {
		return write(os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0))
	}
	return withFS(ctx, path, func(fs filesystem.Interface) error {
		return write(fs.OpenWrite(ctx, path))
	})
}

func readJSON(ctx context.Context, path string, v any) error {
	b, err := readFile(ctx, path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// removeFile removes a file, if it can, through Beam's filesystem layer.
func removeFile(ctx context.Context, path string) {
	_ = withFS(ctx, path, func(fs filesystem.Interface) error {
		if r, ok := fs.(filesystem.Remover); ok {
			return r.Remove(ctx, path)
		}
		return nil
	})
}

// assemble returns the detector of the embedding acc on the map fm
// (decoded from ms) at width gamma with threshold thr: the embedding is
// Sum / N, or for a Nyström map R⁻ᵀ Sum / N, Sum holding the
// kernel rows (expose.NystromEmbedding), as the fit in process computes
// it.
func assemble(params map[string]string, ms MapState, fm randfeat.Map, acc EmbedAcc, gamma, thr float64) (*expose.EXPoSE, error) {
	cfg, err := expose.ConfigFromParams(params)
	if err != nil {
		return nil, err
	}
	if acc.N < 1 || len(acc.Sum) != fm.Dim() {
		return nil, errors.New("exposebeam: embedding and feature map disagree, or no training rows reached the model")
	}
	w := acc.Mean()
	if ny, ok := fm.(*randfeat.Nystrom); ok {
		w = expose.NystromEmbedding(ny, acc.Sum, int(acc.N))
	}
	return expose.FromEmbedding(cfg, ms.stage(), fm, w, int(acc.N), gamma, thr)
}

// planNystrom plans a Nyström fit (expose.PlanNystrom: the landmark and
// threshold rows Fit draws), gathers the landmark rows in a pass over the
// shards, scales them with stage (nil for none) and builds the map on
// them in the launcher (expose.NystromMap), once for every worker.
func planNystrom(ctx context.Context, o FitOptions, cfg expose.Config, shards []Shard, offsets []int64, stage *scale.Stage,
	n, cols int, gamma float64) (randfeat.Map, []int, error) {
	lm, rows, err := expose.PlanNystrom(cfg, n, cols, gamma)
	if err != nil {
		return nil, nil, err
	}
	want := make([]int64, len(lm))
	for i, r := range lm {
		want[i] = int64(r) // ascending
	}
	staged, err := newPending(o.Out, ".landmarks.json")
	if err != nil {
		return nil, nil, err
	}
	defer staged.discard(ctx)
	p, s := beam.NewPipelineWithRoot()
	acc := beam.Combine(s.Scope("Landmarks"), &landmarksFn{Offsets: offsets, Rows: want}, Read(s, shards, o.Label, 0))
	beam.ParDo0(s, &writeLandmarksFn{Path: staged.Temp}, acc)
	if _, err := runPipeline(ctx, o.Runner, p); err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, fmt.Errorf("landmarks pipeline: %w", err)
	}
	var got LandmarkAcc
	if err := readJSON(ctx, staged.Temp, &got); err != nil {
		return nil, nil, err
	}
	if !slices.Equal(got.Index, want) || got.Cols != int64(cols) || len(got.X) != len(want)*cols {
		return nil, nil, fmt.Errorf("exposebeam: the landmarks pass gathered %d of the %d landmark rows", len(got.Index), len(want))
	}
	var L mat.Matrix = mat.NewDense(len(want), cols, got.X)
	if stage != nil {
		if L, err = stage.Apply(L); err != nil {
			return nil, nil, fmt.Errorf("exposebeam: landmarks: %w", err)
		}
	}
	ny, err := expose.NystromMap(ctx, cfg, L, gamma)
	if err != nil {
		return nil, nil, err
	}
	return ny, rows, nil
}

// LandmarkAcc holds landmark rows: their global indices (ascending once
// extracted) and their values, Cols each, in the same order.
type LandmarkAcc struct {
	Index []int64
	Cols  int64
	X     []float64
}

// landmarksFn is the CombineFn that gathers the rows whose global index
// (shard offset + row) is in the sorted list Rows, in ascending order.
type landmarksFn struct {
	Offsets []int64
	Rows    []int64
}

func (f *landmarksFn) CreateAccumulator() LandmarkAcc { return LandmarkAcc{} }

func (f *landmarksFn) AddInput(a LandmarkAcc, b Block) (LandmarkAcc, error) {
	if b.Shard < 0 || b.Shard >= int64(len(f.Offsets)) {
		return a, fmt.Errorf("exposebeam: block of unknown shard %d", b.Shard)
	}
	g0 := f.Offsets[b.Shard] + b.Start
	i, _ := slices.BinarySearch(f.Rows, g0)
	for ; i < len(f.Rows) && f.Rows[i] < g0+b.Rows; i++ {
		r := f.Rows[i] - g0
		a.Index = append(a.Index, f.Rows[i])
		a.X = append(a.X, b.X[r*b.Cols:(r+1)*b.Cols]...)
		a.Cols = b.Cols
	}
	return a, nil
}

func (f *landmarksFn) MergeAccumulators(a, b LandmarkAcc) LandmarkAcc {
	if len(a.Index) == 0 {
		return b
	}
	if len(b.Index) == 0 {
		return a
	}
	return LandmarkAcc{Index: append(slices.Clone(a.Index), b.Index...), Cols: a.Cols, X: append(slices.Clone(a.X), b.X...)}
}

// ExtractOutput sorts the rows by their global index.
func (f *landmarksFn) ExtractOutput(a LandmarkAcc) LandmarkAcc {
	c := int(a.Cols)
	order := make([]int, len(a.Index))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return a.Index[order[i]] < a.Index[order[j]] })
	out := LandmarkAcc{Index: make([]int64, len(order)), Cols: a.Cols, X: make([]float64, 0, len(a.X))}
	for k, i := range order {
		out.Index[k] = a.Index[i]
		out.X = append(out.X, a.X[i*c:(i+1)*c]...)
	}
	return out
}

// writeLandmarksFn writes the gathered landmark rows as JSON to Path.
type writeLandmarksFn struct{ Path string }

func (f *writeLandmarksFn) ProcessElement(ctx context.Context, a LandmarkAcc) error {
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	return writeFile(ctx, f.Path, b)
}
