package expose

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/randfeat"
)

// model is a fitted EXPoSE model: the random feature map, the width it was
// drawn at and the embedding w the scores use. A fit builds it aside; once
// published it is never changed (PartialFit continues a clone).
type model struct {
	fm randfeat.Map // a cosine map (randfeat.Fourier or Orthogonal), or ny
	// ny is the Nyström map (map=nystrom, nil otherwise, in Cholesky
	// form) and alpha = R⁻¹ w the weights of its landmarks' kernel values
	// in a score (settle).
	ny    *randfeat.Nystrom
	cross *landmarkCross // ny's landmarks prepared for kernel values
	alpha []float64
	gamma float64
	reg   regularizer
	w     []float64 // the (regularised) embedding the scores use
	mean  []float64 // batch: the plain mean of φ, from which w is solved; nil for SGD
	n     int       // rows folded into the mean (batch) or SGD iterations done
	chunk int       // Config.ChunkRows: the most rows a feature block holds
}

var _ method.Model = (*model)(nil)

// clone returns a copy of m whose embedding and mean a partial fit may
// change (the map and the regulariser are shared: never changed).
func (m *model) clone() *model {
	c := *m
	c.w = slices.Clone(m.w)
	c.mean = slices.Clone(m.mean)
	c.alpha = slices.Clone(m.alpha)
	return &c
}

// block returns the rows of a feature block (cacheChunk).
func (m *model) block() int { return cacheChunk(m.chunk, m.fm.Dim()) }

// stepRows is the rows the SGD solver maps at a time (its steps then run
// in order over their features): ChunkRows, and fewer at large D, at most
// 2²⁰ feature values (8 MiB), so that the block stays small beside the
// model and is quickly mapped (512 rows at D = 16384 were a 67 MB block,
// whose allocation alone kept a cancelled fit running for 0.4 s under the
// race detector).
func (m *model) stepRows() int {
	return min(m.chunk, max(runtime.GOMAXPROCS(0)*m.block(), (1<<20)/m.fm.Dim()))
}

// scanRows is the chunk of rows a pass that maps them asks for: about
// 2²² feature values (some tens of milliseconds of work between progress
// reports), at least a block for every core, at most method.ChunkRows.
func (m *model) scanRows() int {
	return max(runtime.GOMAXPROCS(0)*m.block(), min(method.ChunkRows(m.fm.InputDim()), (1<<22)/m.fm.Dim()))
}

// Score writes −⟨φ(y), w⟩ for every row y of X into dst, a block of rows at
// a time on every core, and returns ctx.Err() soon after ctx ends.
func (m *model) Score(ctx context.Context, dst []float64, X mat.Matrix) error {
	if m.ny != nil {
		return m.nyScore(ctx, dst, X)
	}
	n, _ := X.Dims()
	D := m.fm.Dim()
	B := m.block()
	dm, fused := m.fm.(randfeat.DotMap)
	nb := (n + B - 1) / B
	bufs := getBlocks(min(runtime.GOMAXPROCS(0), nb))
	defer putBlocks(bufs)
	var worker atomic.Int32
	return parallel.ForBlocksContext(ctx, nb, func() func(b int) {
		buf := bufs[worker.Add(1)-1]
		return func(b int) {
			lo, hi := b*B, min((b+1)*B, n)
			if fused {
				// Features and their inner products with w in one
				// pass over each row.
				dm.TransformDot(dst[lo:hi], csr.Rows(X, lo, hi), m.w, chunkBuf(buf, hi-lo, D))
				for i := lo; i < hi; i++ {
					dst[i] = -dst[i]
				}
				return
			}
			z := featuresOf(m.fm, X, lo, hi, buf)
			for i := lo; i < hi; i++ {
				dst[i] = -floats.Dot(z.RawRowView(i-lo), m.w)
			}
		}
	})
}

// trainScores scores the training rows X (all of them, or a sample) for
// the threshold, reporting the stage "score".
func (m *model) trainScores(ctx context.Context, f *method.Fitting, X mat.Matrix) ([]float64, error) {
	n, _ := X.Dims()
	s := make([]float64, n)
	step := m.scanRows()
	for lo := 0; lo < n; lo += step {
		hi := min(lo+step, n)
		if err := m.Score(ctx, s[lo:hi], csr.Rows(X, lo, hi)); err != nil {
			return nil, err
		}
		f.Report("score", hi, n)
	}
	return s, nil
}

// scoreScan scores every training row in a pass, reporting the stage
// "score".
func (m *model) scoreScan(ctx context.Context, f *method.Fitting) ([]float64, error) {
	n, _ := f.Dims()
	train := make([]float64, n)
	err := f.Scan(ctx, m.scanRows(), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		if err := m.Score(ctx, train[lo:lo+r], X); err != nil {
			return err
		}
		f.Report("score", lo+r, n)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return train, nil
}

// sumFeatures returns Σ_i φ(x_i) over the training rows, in one pass
// (f.Scan) that maps each chunk on every core. The rows fall into blocks
// of m.block() rows numbered from the first row; worker k of W adds the
// features of blocks k, k + W, k + 2W, … to its own accumulator, row by
// row in order, and the accumulators are added in worker order, so the
// sum depends on neither scheduling nor how the source cuts its chunks:
// a fit from a file equals the fit of the same rows in memory, bit for bit
// (for a given core count). report is called with the rows done after
// every chunk.
func (m *model) sumFeatures(ctx context.Context, f *method.Fitting, report func(done int)) ([]float64, error) {
	if m.ny != nil {
		return m.nySum(ctx, f, report)
	}
	n, _ := f.Dims()
	D, B := m.fm.Dim(), m.block()
	W := max(1, min(runtime.GOMAXPROCS(0), (n+B-1)/B))
	acc := make([][]float64, W)
	bufs := getBlocks(W)
	defer putBlocks(bufs)
	for k := range acc {
		acc[k] = make([]float64, D)
	}
	err := f.Scan(ctx, m.scanRows(), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		hi := lo + r
		parallel.ForRanges(W, 1, func(k0, k1 int) { // one worker each
			for k := k0; k < k1; k++ {
				b0 := lo / B
				b0 += ((k-b0)%W + W) % W // the first of worker k's blocks at or after lo's
				for b := b0; b*B < hi && ctx.Err() == nil; b += W {
					i0, i1 := max(b*B, lo), min((b+1)*B, hi)
					z := featuresOf(m.fm, X, i0-lo, i1-lo, bufs[k])
					for i := range i1 - i0 {
						floats.Add(acc[k], z.RawRowView(i))
					}
				}
			}
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		report(hi)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, a := range acc[1:] {
		floats.Add(acc[0], a)
	}
	return acc[0], nil
}

// sgdPassBytes bounds the rows the SGD solver reads in one call of
// f.Rows when the source is read in passes (not by index): T rows of d
// columns at a time, up to this many bytes, each call one pass.
const sgdPassBytes = 32 << 20

// sgdRows runs T steps of Algorithm 1 from m.w after m.n steps, on the
// training rows next draws, read by index (f.Rows) stepRows at a time; from a source read in passes, as many rows as sgdPassBytes holds
// are drawn and read in one pass. It reports the stage "sgd".
func (m *model) sgdRows(ctx context.Context, f *method.Fitting, T int, next func([]int) []int, M float64) error {
	_, dim := f.Dims()
	c := min(m.stepRows(), T)
	read := c
	if !f.ByIndex() {
		read = min(T, max(c, sgdPassBytes/(8*dim)))
	}
	idx := make([]int, read)
	var buf mat.Dense
	for done := 0; done < T; {
		rows := next(idx[:min(read, T-done)])
		X, err := f.Rows(ctx, rows)
		if err != nil {
			return err
		}
		for lo := 0; lo < len(rows); lo += c {
			hi := min(lo+c, len(rows))
			z, err := m.features(ctx, csr.Rows(X, lo, hi), &buf)
			if err != nil {
				return err
			}
			m.iterate(z, M)
			done += hi - lo
			f.Report("sgd", done, T)
		}
	}
	return nil
}

// features maps the rows of X into buf (resized as needed) a block at a
// time on every core, and returns ctx.Err() soon after ctx ends.
func (m *model) features(ctx context.Context, X mat.Matrix, buf *mat.Dense) (*mat.Dense, error) {
	n, _ := X.Dims()
	z := chunkBuf(buf, n, m.fm.Dim())
	if m.ny != nil {
		m.ny.Transform(z, X) // on every core itself
		return z, ctx.Err()
	}
	B := m.block()
	err := parallel.ForBlocksContext(ctx, (n+B-1)/B, func() func(b int) {
		return func(b int) {
			lo, hi := b*B, min((b+1)*B, n)
			m.fm.Transform(z.Slice(lo, hi, 0, m.fm.Dim()).(*mat.Dense), csr.Rows(X, lo, hi))
		}
	})
	return z, err
}

// sgdScan continues Algorithm 1 over the training rows in order (a
// partial fit), a feature block at a time.
func (m *model) sgdScan(ctx context.Context, f *method.Fitting, M float64) error {
	n, _ := f.Dims()
	var buf mat.Dense
	return f.Scan(ctx, m.scanRows(), func(lo int, X mat.Matrix) error {
		r, _ := X.Dims()
		for i := 0; i < r; i += m.stepRows() {
			j := min(i+m.stepRows(), r)
			z, err := m.features(ctx, csr.Rows(X, i, j), &buf)
			if err != nil {
				return err
			}
			m.iterate(z, M)
			f.Report("sgd", lo+j, n)
		}
		return nil
	})
}

// iterate runs steps m.n+1, m.n+2, … of Algorithm 1 on the feature rows z
// of the rows drawn: w ← (1 − 1/t) w + (1/t) φ(x_t) (or the regulariser's
// step), then w is projected onto the ball of radius M.
func (m *model) iterate(z *mat.Dense, M float64) {
	r, _ := z.Dims()
	for i := range r {
		m.n++
		m.reg.step(m.w, z.RawRowView(i), 1/float64(m.n))
		// ‖w‖ ≤ M·√2 or so: no overflow to guard against, so the plain
		// √⟨w, w⟩ (a SIMD dot) replaces the scaled floats.Norm.
		if nrm := math.Sqrt(floats.Dot(m.w, m.w)); nrm > M {
			floats.Scale(M/nrm, m.w)
		}
	}
}

// cacheBytes is the size of the feature block a worker maps and consumes
// at a time: small enough to stay in the L2 cache between the cosines and
// the sum or dot product that reads it back. At D = 8,000 a 512-row chunk
// is 32 MB, which went to memory and back: BenchmarkBatchFitScore (10,000
// rows of 32_shuttle) took 152–155 ms that way against 119–126 ms with
// blocks of 4 rows (D = 4,000: 64–73 ms against 60–63).
const cacheBytes = 256 << 10

// cacheChunk returns the rows of a feature block at D features: cacheBytes
// worth, at least 4 (the row block of the product behind the features,
// fastmath.MulNN) and at most chunk (the ChunkRows memory cap).
func cacheChunk(chunk, D int) int {
	return max(1, min(chunk, max(4, cacheBytes/(8*D))))
}

// blockPool holds the workers' feature blocks between calls of Score (and
// the batch sum, whose blocks Score then reuses): a fit scores its
// threshold rows a chunk at a time, and scoring streams chunks, each call
// mapping a block per worker; a fresh block is zeroed by the runtime and
// left to the collector (1 MB a call at D = 16384, 40 MB of garbage for
// 10,000 rows).
var blockPool = sync.Pool{New: func() any { return new(mat.Dense) }}

// getBlocks returns k feature blocks from the pool; putBlocks returns them.
func getBlocks(k int) []*mat.Dense {
	b := make([]*mat.Dense, k)
	for i := range b {
		b[i] = blockPool.Get().(*mat.Dense)
	}
	return b
}

func putBlocks(b []*mat.Dense) {
	for _, d := range b {
		blockPool.Put(d)
	}
}

// featuresOf maps rows [lo, hi) of X into buf (resized as needed).
func featuresOf(fm randfeat.Map, X mat.Matrix, lo, hi int, buf *mat.Dense) *mat.Dense {
	z := chunkBuf(buf, hi-lo, fm.Dim())
	fm.Transform(z, csr.Rows(X, lo, hi))
	return z
}

// chunkBuf returns the first rows × D of buf, resized as needed.
func chunkBuf(buf *mat.Dense, rows, D int) *mat.Dense {
	if r, c := buf.Dims(); buf.IsEmpty() || r < rows || c != D {
		buf.Reset()
		buf.ReuseAs(rows, D)
	}
	return buf.Slice(0, rows, 0, D).(*mat.Dense)
}

// sampler draws training rows uniformly without replacement, in passes over
// the data: within a pass no row repeats, and a new pass starts when all n
// rows have been drawn. It is a partial Fisher–Yates shuffle over a sparse
// map of displaced entries, so drawing k rows costs O(k) time and memory
// whatever n is (the draws of method.SampleIndices, in the order drawn).
type sampler struct {
	rng     *rand.Rand
	n       int
	i       int         // rows drawn in this pass
	swapped map[int]int // position → row, where it differs from the identity
}

// next fills dst with the next rows and returns it.
func (s *sampler) next(dst []int) []int {
	for k := range dst {
		if s.i == s.n || s.swapped == nil {
			s.i, s.swapped = 0, map[int]int{}
		}
		at := func(p int) int {
			if v, ok := s.swapped[p]; ok {
				return v
			}
			return p
		}
		j := s.i + s.rng.IntN(s.n-s.i)
		dst[k] = at(j)
		s.swapped[j] = at(s.i)
		s.i++
	}
	return dst
}
