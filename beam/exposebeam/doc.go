// Package exposebeam runs EXPoSE (package expose of the core module) on
// Apache Beam, so a model can be fitted on data spread over many files and
// machines by an existing engine (Dataflow, Flink, Spark, or Beam's local
// runners) and used by the core 'anomaly score' unchanged.
//
// # Why it splits exactly
//
// The EXPoSE batch model is the kernel mean embedding in a random feature
// space, w = 1/n Σ_i φ(x_i) with φ(x) = √(2/D) cos(Wx + b), and a score is
// a map over rows, score(y) = −⟨φ(y), w⟩. A sum is a Beam CombineFn:
// EmbedFn's accumulator is (Σ φ(x), count); AddInput maps a block of rows
// and adds its features, MergeAccumulators adds two partial sums, and
// ExtractOutput returns the pair (the mean is taken when the model is
// assembled). Partial sums may be added in any order, so the result equals
// the in-process fit up to the rounding of a reordered sum (relative 1e-16
// per addition).
//
// # One feature map for every worker
//
// The map (W, b) is drawn once, in the launcher, from the seed, by
// expose.PlanBatch: the draws expose.EXPoSE.Fit makes, in the same order
// on the same source. It travels inside EmbedFn and the scoring DoFn as
// MapState (the arrays themselves, JSON-encoded exactly), so no worker draws
// anything.
//
// # The Nyström map
//
// With map=nystrom (expose's default: Nyström features on landmark rows) the map
// depends on the data: the launcher draws the landmark rows and the
// threshold sample with expose.PlanNystrom (Fit's draws), a pass gathers
// the landmark rows (landmarksFn), and the launcher scales them and builds
// the map once with expose.NystromMap (K_mm's pivoted Cholesky
// factorisation). The kept landmarks and the factor R travel as MapState;
// EmbedFn sums the rows' kernel values against the landmarks, and the
// embedding is R⁻ᵀ·Sum/N (expose.NystromEmbedding) as in process, where a sum
// of features multiplied row by row would round differently (by 2.6e-13
// in expose's test). The threshold rows are scored by the detector
// assembled from the embedding, as the saved model scores them.
//
// # Passes
//
// Fit runs two pipelines (three for map=nystrom). The statistics pass (MomentsFn, a CombineFn over
// the rows' count per shard and the mean and squared deviations of all
// entries and of every column, merged pairwise) gives n, the scale stage
// and, for gamma = scale, γ = 1/(d·Var(X)) as kernel.ScaleGamma computes it
// on the scaled rows (for gamma = scale_scott, expose's default, that γ
// times n^(2/(d+4))). The stage is scale=standard (the default: per-column
// mean and standard deviation, Moments.Stage) or none; robust and minmax
// need order statistics or extremes per column, which this pass does not
// compute, and are refused. The stage travels with the feature map
// (MapState.Offset, Divisor): every worker scales its rows before mapping
// them, and the saved model holds the stage, so the model scores exactly as
// an in-process fit. The launcher then plans the map and the threshold
// sample. The embedding pass combines the embedding, scores the
// sampled training rows with it (a side input) and writes the model.
//
// # Threshold
//
// As in process, the threshold is the (1 − contamination) quantile of the
// scores of ThresholdRows training rows (default 10,000; all rows when n is
// smaller; threshold_rows=-1 scores every row). The sample is the one Fit
// draws: expose.PlanBatch returns its global row indices (rows numbered
// shard by shard in sorted path order), so the Beam threshold equals the
// in-process one when the shards are the in-process data cut in order.
//
// # Inputs
//
// A shard is one file read whole by the core loader (dataset.Read), so CSV
// with a header row, .npy and the other core formats parse as 'anomaly fit'
// parses them (a column named like a label, such as y or label, is taken as
// the label and dropped, as there). Shards are the unit of parallelism: a
// runner may hand the shards of one bundle to different workers (the reader
// is a splittable DoFn with one position per shard), but never splits a
// shard; every shard must fit in a worker's memory. The fit reads a shard as
// one Block and EmbedFn maps it ChunkRows rows at a time.
//
// # Accuracy
//
// With gamma given, a fit of 16_http (567,498 rows in 8 shards, D = 2000)
// equals the in-process fit to 9e-15 on every array. Under gamma = scale
// the two compute γ differently: the statistics pass merges per-block
// moments pairwise (Chan et al.), kernel.ScaleGamma uses compensated sums
// over all n·d entries; γ agrees to 1.1e-13 relative and the model to
// 4.8e-14 (direct and prism).
package exposebeam
