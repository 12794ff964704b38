package cpd

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/tensor"
)

// SampleError reports the sample (row of the batch matrix, zero-based) whose
// decomposition failed.
type SampleError struct {
	Row int
	Err error
}

func (e *SampleError) Error() string {
	return fmt.Sprintf("cpd: sample %d: %s", e.Row+1, strings.TrimPrefix(e.Err.Error(), "cpd: "))
}
func (e *SampleError) Unwrap() error { return e.Err }

// KruskalBytes is the memory one Kruskal tensor of the given shape and
// rank holds as DecomposeBatch returns it: the struct, its weights, its
// slice of factors and the factor matrices with their values, each
// allocation rounded up to a multiple of 16 bytes (Go's small size
// classes). For small tensors this overhead is several times the values
// themselves: 320 bytes for a 4 × 3 sample at rank 1, whose factors hold
// 56.
func KruskalBytes(shape []int, rank int) int64 {
	round := func(b uintptr) int64 { return int64((b + 15) &^ 15) }
	b := round(unsafe.Sizeof(Kruskal{})) + round(8*uintptr(rank)) + round(8*uintptr(len(shape)))
	for _, in := range shape {
		b += round(unsafe.Sizeof(mat.Dense{})) + round(8*uintptr(in*rank))
	}
	return b
}

// DecomposeBatch factorises every row of X, each row being one sample tensor
// of the given shape flattened row-major, and returns one Kruskal tensor per
// row in row order. The work is spread over runtime.GOMAXPROCS(0) workers,
// each reusing one workspace; rows of a *mat.Dense (any mat.RawMatrixer) are
// read in place.
//
// The shape must describe the rows (a *tensor.ShapeError otherwise) and cfg
// is validated once against it. With Random initialisation, one seed per row
// is drawn from cfg.Src in row order before the parallel work starts, so the
// result does not depend on scheduling. A failure on one row (non-finite
// values) is returned as a *SampleError; ctx cancels the batch.
func DecomposeBatch(ctx context.Context, X mat.Matrix, shape []int, cfg Config) ([]Kruskal, error) {
	rows, cols := X.Dims()
	if err := tensor.CheckShape(shape, cols); err != nil {
		return nil, err
	}
	cfg, err := cfg.check(shape)
	if err != nil {
		return nil, err
	}
	out := make([]Kruskal, rows)
	if rows == 0 {
		return out, nil
	}
	var seeds []uint64
	if cfg.Init == Random {
		rng := rand.New(srcOrDefault(cfg.Src))
		seeds = make([]uint64, rows)
		for i := range seeds {
			seeds[i] = rng.Uint64()
		}
	}
	raw, isRaw := X.(mat.RawMatrixer)
	workers := min(runtime.GOMAXPROCS(0), rows)
	// Per-sample work reports no progress of its own; the batch reports
	// samples done, from one goroutine at a time.
	progress := cfg.Progress
	cfg.Progress, cfg.Trace = nil, false
	var (
		progMu sync.Mutex
		done   int
	)
	var (
		next    atomic.Int64
		failed  atomic.Bool
		errOnce sync.Once
		first   error
		wg      sync.WaitGroup
	)
	fail := func(e error) {
		errOnce.Do(func() { first = e })
		failed.Store(true)
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A single worker may use both cores inside one large tensor.
			ws := newWorkspace(shape, cfg.Rank, workers == 1)
			var buf *tensor.Dense
			var rm mat.RawMatrixer
			if isRaw {
				rm = raw
			} else {
				buf = tensor.Zeros(shape...)
			}
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= rows {
					return
				}
				if err := ctx.Err(); err != nil {
					fail(err)
					return
				}
				var data []float64
				if rm != nil {
					r := rm.RawMatrix()
					data = r.Data[i*r.Stride : i*r.Stride+cols]
				} else {
					buf.Row(X, i)
					data = buf.Data()
				}
				var rng *rand.Rand
				if seeds != nil {
					rng = rand.New(rand.NewPCG(seeds[i], uint64(i)))
				}
				k, err := ws.decompose(ctx, data, cfg, rng)
				if err != nil {
					if err == ctx.Err() {
						fail(err)
					} else {
						fail(&SampleError{Row: i, Err: err})
					}
					return
				}
				out[i] = k
				if progress != nil {
					progMu.Lock()
					done++
					progress("cp-als", done, rows)
					progMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	return out, nil
}
