package exposebeam

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/kernelad/anomaly/expose"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func init() {
	registerTypes((*Moments)(nil), (*MomentsFn)(nil), (*EmbedAcc)(nil), (*EmbedFn)(nil), (*MapState)(nil))
}

// Moments is the accumulator of the statistics pass: the number of rows of
// each shard, the column count, and the mean and the sum of squared
// deviations (M2) over all Entries = rows × columns values, merged with
// Chan et al.'s pairwise update so partial results combine in any order.
type Moments struct {
	ShardRows []int64
	Cols      int64
	Entries   int64
	Mean      float64
	M2        float64
	// ColMean and ColM2 are the per-column mean and sum of squared
	// deviations over the rows (the standard scale stage).
	ColMean []float64
	ColM2   []float64
	// ShardCols is the column count of each shard (0 for a shard of no
	// rows) and ShardNames its column names (nil without a header), so
	// that shards of other columns are named in the error.
	ShardCols  []int64
	ShardNames [][]string
}

// Stage returns the standard scale stage of the rows (per-column mean and
// population standard deviation; a constant column is centred and left
// unscaled), as scale.Fit with rule standard computes it.
func (m Moments) Stage() *scale.Stage {
	n := float64(m.Rows())
	st := &scale.Stage{Rule: scale.Standardize, Offset: append([]float64(nil), m.ColMean...), Divisor: make([]float64, len(m.ColM2))}
	for j, v := range m.ColM2 {
		sd := math.Sqrt(v / n)
		if !(sd > 0) || math.IsInf(sd, 0) {
			sd = 1
		}
		st.Divisor[j] = sd
	}
	return st
}

// StandardGamma is the scale rule γ = 1/(d·Var) on the standardised rows:
// every column then has mean 0 and variance ColM2_j/(n·σ_j²) (1, or 0 for
// a constant column), so Var is their mean over the d columns.
func (m Moments) StandardGamma() float64 {
	st := m.Stage()
	n := float64(m.Rows())
	var v float64
	for j, s := range st.Divisor {
		v += m.ColM2[j] / (n * s * s)
	}
	v /= float64(len(st.Divisor))
	if v == 0 {
		return 1
	}
	return 1 / (float64(m.Cols) * v)
}

// Rows is the total number of rows.
func (m Moments) Rows() int64 {
	var n int64
	for _, r := range m.ShardRows {
		n += r
	}
	return n
}

// Gamma is the scale rule γ = 1/(d·Var) with Var the population variance of
// every entry, as kernel.ScaleGamma computes it (1 when the variance is 0).
func (m Moments) Gamma() float64 {
	if m.Entries == 0 {
		return 0
	}
	v := m.M2 / float64(m.Entries)
	if v == 0 {
		return 1
	}
	return 1 / (float64(m.Cols) * v)
}

// MomentsFn is the CombineFn of the statistics pass over Blocks.
type MomentsFn struct {
	Shards int64
	// Paths names the shards in messages (optional).
	Paths []string
}

func (f *MomentsFn) CreateAccumulator() Moments {
	return Moments{ShardRows: make([]int64, f.Shards), ShardCols: make([]int64, f.Shards), ShardNames: make([][]string, f.Shards)}
}

// shardName is the file of shard i, or "shard i" when the paths are not
// known.
func (f *MomentsFn) shardName(i int) string {
	if i >= 0 && i < len(f.Paths) {
		return f.Paths[i]
	}
	return fmt.Sprintf("shard %d", i)
}

// firstShard is the first shard of m with c columns (-1 if none).
func firstShard(m Moments, c int64) int {
	for i, n := range m.ShardCols {
		if n == c {
			return i
		}
	}
	return -1
}

func (f *MomentsFn) AddInput(a Moments, b Block) (Moments, error) {
	if b.Shard < 0 || b.Shard >= int64(len(a.ShardRows)) {
		return a, fmt.Errorf("exposebeam: block of shard %d; the fit has %d shards", b.Shard, len(a.ShardRows))
	}
	// Two-pass moments of the block, then one merge.
	var sum float64
	for _, x := range b.X {
		sum += x
	}
	n := int64(len(b.X))
	var blk Moments
	blk.ShardRows = make([]int64, len(a.ShardRows))
	blk.ShardRows[b.Shard] = b.Rows
	blk.ShardCols = make([]int64, len(a.ShardRows))
	blk.ShardCols[b.Shard] = b.Cols
	blk.ShardNames = make([][]string, len(a.ShardRows))
	blk.ShardNames[b.Shard] = b.Columns
	blk.Cols, blk.Entries = b.Cols, n
	if n > 0 {
		blk.Mean = sum / float64(n)
		for _, x := range b.X {
			blk.M2 += (x - blk.Mean) * (x - blk.Mean)
		}
		c, r := int(b.Cols), float64(b.Rows)
		blk.ColMean, blk.ColM2 = make([]float64, c), make([]float64, c)
		for i := 0; i < int(b.Rows); i++ {
			for j, x := range b.X[i*c : (i+1)*c] {
				blk.ColMean[j] += x
			}
		}
		for j := range blk.ColMean {
			blk.ColMean[j] /= r
		}
		for i := 0; i < int(b.Rows); i++ {
			for j, x := range b.X[i*c : (i+1)*c] {
				d := x - blk.ColMean[j]
				blk.ColM2[j] += d * d
			}
		}
	}
	return f.MergeAccumulators(a, blk)
}

func (f *MomentsFn) MergeAccumulators(a, b Moments) (Moments, error) {
	if a.Cols != 0 && b.Cols != 0 && a.Cols != b.Cols {
		i, j := firstShard(a, a.Cols), firstShard(b, b.Cols)
		if i < 0 || j < 0 {
			return a, &DataError{Msg: fmt.Sprintf("shards have %d and %d columns", a.Cols, b.Cols)}
		}
		if j < i { // name the files in their order
			i, j, a, b = j, i, b, a
		}
		return a, &DataError{Msg: fmt.Sprintf("%s has %d columns and %s has %d; the shards of a fit must have the same columns", f.shardName(i), a.Cols, f.shardName(j), b.Cols)}
	}
	if len(a.ShardRows) != len(b.ShardRows) {
		return a, errors.New("exposebeam: accumulators of different shard lists")
	}
	out := Moments{ShardRows: make([]int64, len(a.ShardRows)), Cols: max(a.Cols, b.Cols)}
	for i := range out.ShardRows {
		out.ShardRows[i] = a.ShardRows[i] + b.ShardRows[i]
	}
	if len(a.ShardCols) == len(out.ShardRows) && len(b.ShardCols) == len(out.ShardRows) {
		out.ShardCols = make([]int64, len(out.ShardRows))
		out.ShardNames = make([][]string, len(out.ShardRows))
		for i := range out.ShardCols {
			out.ShardCols[i] = max(a.ShardCols[i], b.ShardCols[i])
			out.ShardNames[i] = a.ShardNames[i]
			if out.ShardNames[i] == nil && i < len(b.ShardNames) {
				out.ShardNames[i] = b.ShardNames[i]
			}
		}
	}
	out.Entries = a.Entries + b.Entries
	switch {
	case a.Entries == 0:
		out.Mean, out.M2, out.ColMean, out.ColM2 = b.Mean, b.M2, b.ColMean, b.ColM2
	case b.Entries == 0:
		out.Mean, out.M2, out.ColMean, out.ColM2 = a.Mean, a.M2, a.ColMean, a.ColM2
	default:
		na, nb, n := float64(a.Entries), float64(b.Entries), float64(out.Entries)
		delta := b.Mean - a.Mean
		out.Mean = a.Mean + delta*nb/n
		out.M2 = a.M2 + b.M2 + delta*delta*na*nb/n
		// Per column, the same merge over row counts (Chan et al.).
		ra, rb := float64(a.Entries/a.Cols), float64(b.Entries/b.Cols)
		out.ColMean, out.ColM2 = make([]float64, len(a.ColMean)), make([]float64, len(a.ColM2))
		for j := range out.ColMean {
			d := b.ColMean[j] - a.ColMean[j]
			out.ColMean[j] = a.ColMean[j] + d*rb/(ra+rb)
			out.ColM2[j] = a.ColM2[j] + b.ColM2[j] + d*d*ra*rb/(ra+rb)
		}
	}
	return out, nil
}

func (f *MomentsFn) ExtractOutput(a Moments) Moments { return a }

// Columns checks that the shards with column names (a CSV header) have
// the same names in the same order and returns them (nil when no shard
// has names); paths names the shards. A fit of shards whose headers
// differ would add up unrelated columns.
func (m Moments) Columns(paths []string) ([]string, error) {
	first := -1
	for i, names := range m.ShardNames {
		if names == nil {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		want := m.ShardNames[first]
		k := 0
		for k < len(names) && k < len(want) && names[k] == want[k] {
			k++
		}
		if k == len(names) && k == len(want) {
			continue
		}
		name := func(s []string) string {
			if k < len(s) {
				return strconv.Quote(s[k])
			}
			return "missing"
		}
		return nil, &DataError{Msg: fmt.Sprintf("%s: column %d is %s but it is %s in %s; the shards of a fit must have the same columns in the same order",
			pathOf(paths, i), k+1, name(names), name(want), pathOf(paths, first))}
	}
	if first < 0 {
		return nil, nil
	}
	return m.ShardNames[first], nil
}

func pathOf(paths []string, i int) string {
	if i < len(paths) {
		return paths[i]
	}
	return fmt.Sprintf("shard %d", i)
}

// MapState is a feature map in a form that travels in the pipeline: for a
// random Fourier map, the D × Cols frequencies W (row-major) and the D
// phases B of z(x) = √(2/D) cos(Wx + b); for a Nyström map (map=nystrom),
// the r landmarks its pivoted Cholesky factorisation kept (r × Cols,
// scaled, in its order), its factor R (Factor, r × r upper triangular),
// and the kernel and width. The launcher draws the random map once from
// the seed (expose.PlanBatch), or builds the Nyström map once on the
// landmark rows the seed picks (expose.PlanNystrom, NystromMap), and
// every worker decodes these same arrays; nothing is redrawn or
// decomposed on a worker. encoding/json, which Beam uses for the fields
// of DoFns and CombineFns, writes float64 values so they read back
// exactly.
type MapState struct {
	Cols int64
	W    []float64
	B    []float64
	// The Nyström map: empty for a random map.
	Landmarks []float64
	Factor    []float64
	Kernel    string
	Gamma     float64
	// Offset and Divisor are the scale stage applied to the rows before
	// the map (x − Offset)/Divisor; both empty for scale=none.
	Offset  []float64
	Divisor []float64
}

// stage returns the scale stage the map applies first (nil for none).
func (m MapState) stage() *scale.Stage {
	if len(m.Divisor) == 0 {
		return nil
	}
	return &scale.Stage{Rule: scale.Standardize, Offset: m.Offset, Divisor: m.Divisor}
}

// NewMapState captures a cosine feature map (randfeat.Fourier or
// randfeat.Orthogonal).
func NewMapState(fm randfeat.Map) (MapState, error) {
	if ny, ok := fm.(*randfeat.Nystrom); ok {
		L, dense := ny.Landmarks.(*mat.Dense)
		var kind string
		var gamma float64
		switch k := ny.K.(type) {
		case kernel.RBF:
			kind, gamma = "rbf", k.Gamma
		case kernel.Laplacian:
			kind, gamma = "laplacian", k.Gamma
		}
		if !dense || kind == "" {
			return MapState{}, fmt.Errorf("exposebeam: Nyström map of kernel %T and landmarks %T", ny.K, ny.Landmarks)
		}
		m, c := L.Dims()
		if ny.Factor == nil {
			return MapState{}, errors.New("exposebeam: Nyström map not in Cholesky form (expose.NystromMap)")
		}
		st := MapState{Cols: int64(c), Landmarks: flatten(L), Factor: flatten(ny.Factor), Kernel: kind, Gamma: gamma}
		return st, checkSquare(ny.Factor, m)
	}
	cm, ok := fm.(interface {
		Frequencies() (*mat.Dense, []float64)
	})
	if !ok {
		return MapState{}, fmt.Errorf("exposebeam: feature map %T is not a cosine map", fm)
	}
	W, b := cm.Frequencies()
	_, c := W.Dims()
	return MapState{Cols: int64(c), W: flatten(W), B: append([]float64(nil), b...)}, nil
}

// flatten returns the rows of M one after the other.
func flatten(M *mat.Dense) []float64 {
	r, c := M.Dims()
	flat := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		flat = append(flat, M.RawRowView(i)...)
	}
	return flat
}

// checkSquare reports a Factor that is not m × m.
func checkSquare(M *mat.Dense, m int) error {
	if r, c := M.Dims(); r != m || c != m {
		return fmt.Errorf("exposebeam: Nyström matrix of %d × %d for %d landmarks", r, c, m)
	}
	return nil
}

// nystrom reports whether the state is a Nyström map.
func (m MapState) nystrom() bool { return len(m.Landmarks) > 0 }

// Map rebuilds the feature map: a *randfeat.Fourier, or a
// *randfeat.Nystrom restored from its Cholesky factor (no factorisation).
func (m MapState) Map() (randfeat.Map, error) {
	if m.nystrom() {
		return m.nystromMap()
	}
	return m.fourier()
}

// nystromMap rebuilds a Nyström map.
func (m MapState) nystromMap() (*randfeat.Nystrom, error) {
	c := int(m.Cols)
	if c < 1 || len(m.Landmarks)%c != 0 {
		return nil, errors.New("exposebeam: malformed feature map state")
	}
	k := len(m.Landmarks) / c
	if len(m.Factor) != k*k {
		return nil, errors.New("exposebeam: malformed feature map state")
	}
	var kern kernel.Kernel = kernel.RBF{Gamma: m.Gamma}
	if m.Kernel == "laplacian" {
		kern = kernel.Laplacian{Gamma: m.Gamma}
	}
	return randfeat.RestoreNystromCholesky(kern, mat.NewDense(k, c, append([]float64(nil), m.Landmarks...)),
		mat.NewDense(k, k, append([]float64(nil), m.Factor...)))
}

// fourier rebuilds a random Fourier map.
func (m MapState) fourier() (*randfeat.Fourier, error) {
	D := len(m.B)
	if D == 0 || m.Cols < 1 || len(m.W) != D*int(m.Cols) {
		return nil, errors.New("exposebeam: malformed feature map state")
	}
	return &randfeat.Fourier{W: mat.NewDense(D, int(m.Cols), append([]float64(nil), m.W...)), B: append([]float64(nil), m.B...)}, nil
}

// EmbedAcc is the accumulator of the embedding: the sum of φ(x) over the
// rows seen and their count. The embedding is Sum / N. For a Nyström map
// Sum is the sum of the kernel rows k_m(x) against the landmarks, and the
// embedding R⁻ᵀ Sum / N (expose.NystromEmbedding), as the fit in
// process computes it.
type EmbedAcc struct {
	Sum []float64
	N   int64
}

// EmbedFn is the CombineFn that computes the EXPoSE batch embedding: it
// maps each Block with the feature map it carries, Chunk rows at a time
// (default 512), and adds the rows' features (for a Nyström map, their
// kernel rows) to the accumulator. The map is decoded once per instance.
type EmbedFn struct {
	Map   MapState
	Chunk int64

	once sync.Once
	fm   randfeat.Map
	err  error
	buf  mat.Dense
}

func (f *EmbedFn) featureMap() (randfeat.Map, error) {
	f.once.Do(func() {
		f.fm, f.err = f.Map.Map()
		if ny, ok := f.fm.(*randfeat.Nystrom); ok {
			f.fm = kernelRows{ny}
		}
	})
	return f.fm, f.err
}

// kernelRows maps rows to their kernel values against the landmarks of a
// Nyström map, k_m(x), as the fit in process computes them: what EmbedFn
// sums for it.
type kernelRows struct{ *randfeat.Nystrom }

func (k kernelRows) Transform(dst *mat.Dense, X mat.Matrix) {
	expose.NystromKernelRows(dst, k.Nystrom, X) // the values the fit in process adds
}

func (f *EmbedFn) CreateAccumulator() EmbedAcc { return EmbedAcc{} }

func (f *EmbedFn) AddInput(a EmbedAcc, b Block) (EmbedAcc, error) {
	fm, err := f.featureMap()
	if err != nil {
		return a, err
	}
	if b.Cols != int64(fm.InputDim()) {
		return a, fmt.Errorf("exposebeam: shard %d has %d columns, the feature map %d", b.Shard, b.Cols, fm.InputDim())
	}
	if a.Sum == nil {
		a.Sum = make([]float64, fm.Dim())
	}
	err = forChunks(fm, f.Map.stage(), b, int(f.Chunk), &f.buf, func(z *mat.Dense) {
		r, _ := z.Dims()
		for i := 0; i < r; i++ {
			floats.Add(a.Sum, z.RawRowView(i))
		}
	})
	a.N += b.Rows
	return a, err
}

// forChunks maps the rows of b chunk rows at a time into buf, through the
// scale stage st first when it is not nil, and calls fn with each chunk's
// features.
func forChunks(fm randfeat.Map, st *scale.Stage, b Block, chunk int, buf *mat.Dense, fn func(z *mat.Dense)) error {
	if chunk < 1 {
		chunk = 512
	}
	D, c, n := fm.Dim(), int(b.Cols), int(b.Rows)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		if r, cc := buf.Dims(); buf.IsEmpty() || r < hi-lo || cc != D {
			buf.Reset()
			buf.ReuseAs(hi-lo, D)
		}
		z := buf.Slice(0, hi-lo, 0, D).(*mat.Dense)
		var x mat.Matrix = mat.NewDense(hi-lo, c, b.X[lo*c:hi*c])
		if st != nil {
			var err error
			if x, err = st.Apply(x); err != nil {
				return fmt.Errorf("exposebeam: shard %d: %w", b.Shard, err)
			}
		}
		fm.Transform(z, x)
		fn(z)
	}
	return nil
}

// embedMerges counts MergeAccumulators calls that add two non-empty sums,
// so a run can show that the runner merged partial accumulators.
var embedMerges = beam.NewCounter("exposebeam", "embed_merges")

func (f *EmbedFn) MergeAccumulators(ctx context.Context, a, b EmbedAcc) (EmbedAcc, error) {
	switch {
	case b.Sum == nil:
		return a, nil
	case a.Sum == nil:
		return b, nil
	case len(a.Sum) != len(b.Sum):
		return a, fmt.Errorf("exposebeam: accumulators of %d and %d features", len(a.Sum), len(b.Sum))
	}
	out := EmbedAcc{Sum: append([]float64(nil), a.Sum...), N: a.N + b.N}
	floats.Add(out.Sum, b.Sum)
	embedMerges.Inc(ctx, 1)
	return out, nil
}

func (f *EmbedFn) ExtractOutput(a EmbedAcc) EmbedAcc { return a }

// Mean returns the embedding Sum / N.
func (a EmbedAcc) Mean() []float64 {
	w := append([]float64(nil), a.Sum...)
	if a.N > 0 {
		floats.Scale(1/float64(a.N), w)
	}
	return w
}
