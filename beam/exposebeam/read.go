package exposebeam

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"reflect"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/kernelad/anomaly/dataset"
	"gonum.org/v1/gonum/mat"
)

func init() {
	registerTypes((*Shard)(nil), (*Block)(nil), (*readFn)(nil))
}

// registerTypes registers with Beam the types that travel in a pipeline
// (elements, DoFns, CombineFns), each given as a nil pointer to it.
func registerTypes(ptrs ...any) {
	for _, p := range ptrs {
		beam.RegisterType(reflect.TypeOf(p).Elem())
	}
}

// Shard is one input file. Index is its position in the sorted list of the
// files the glob matched: rows are numbered shard by shard in that order,
// which is the order an in-process fit of the concatenated files sees.
type Shard struct {
	Index int64
	Path  string
}

// Block is a run of consecutive rows of one shard: rows Start … Start+Rows-1
// (0-based, header excluded) as a row-major Rows × Cols array.
type Block struct {
	Shard int64
	Start int64
	Rows  int64
	Cols  int64
	X     []float64
	// Columns names the columns (the shard's CSV header, label dropped)
	// in the first block of a shard; nil in the others and for files
	// without names.
	Columns []string
}

// Matrix returns the block's rows as a matrix sharing X.
func (b Block) Matrix() *mat.Dense { return mat.NewDense(int(b.Rows), int(b.Cols), b.X) }

// ListShards expands glob (a local path or any scheme registered with Beam's
// filesystem package, such as gs://) into shards sorted by path.
func ListShards(ctx context.Context, glob string) ([]Shard, error) {
	var files []string
	err := withFS(ctx, glob, func(fs filesystem.Interface) (err error) {
		if files, err = fs.List(ctx, glob); err != nil {
			return fmt.Errorf("listing %s: %w", glob, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files match %s", glob)
	}
	sort.Strings(files)
	out := make([]Shard, len(files))
	for i, f := range files {
		out[i] = Shard{Index: int64(i), Path: f}
	}
	return out, nil
}

// withFS calls fn with the Beam filesystem of path (local, gs://, … by its
// scheme) and closes it after.
func withFS(ctx context.Context, path string, fn func(filesystem.Interface) error) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	return fn(fs)
}

// readFile reads a whole file through Beam's filesystem layer.
func readFile(ctx context.Context, path string) ([]byte, error) {
	var data []byte
	err := withFS(ctx, path, func(fs filesystem.Interface) error {
		r, err := fs.OpenRead(ctx, path)
		if err != nil {
			return err
		}
		defer r.Close()
		if data, err = io.ReadAll(r); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		return nil
	})
	return data, err
}

// readShard reads one whole shard with the core loader (dataset.Read: CSV
// with a header row, .npy, and the other formats it knows by extension), so
// rows parse exactly as 'anomaly fit' and 'anomaly score' parse them.
func readShard(ctx context.Context, p, label string) (*mat.Dense, []string, error) {
	data, err := readFile(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	ds, err := dataset.Read(bytes.NewReader(data), int64(len(data)), path.Base(p), dataset.Options{Label: label})
	if err != nil {
		return nil, nil, &DataError{Msg: err.Error()}
	}
	var names []string
	if len(ds.Columns) == ds.Cols() {
		names = ds.Columns
	}
	if d, ok := ds.X.(*mat.Dense); ok {
		return d, names, nil
	}
	return mat.DenseCopyOf(ds.X), names, nil
}

// readFn reads shards into blocks of Chunk rows. It is a splittable DoFn
// whose restriction is the single shard, so runners that split bundles
// dynamically (prism, Dataflow, Flink) can hand the shards of one bundle to
// different workers; a shard itself is never split.
type readFn struct {
	Label string
	Chunk int64
}

func (f *readFn) CreateInitialRestriction(Shard) offsetrange.Restriction {
	return offsetrange.Restriction{Start: 0, End: 1}
}

func (f *readFn) SplitRestriction(_ Shard, r offsetrange.Restriction) []offsetrange.Restriction {
	return []offsetrange.Restriction{r}
}

func (f *readFn) RestrictionSize(_ Shard, r offsetrange.Restriction) float64 { return r.Size() }

func (f *readFn) CreateTracker(r offsetrange.Restriction) *sdf.LockRTracker {
	return sdf.NewLockRTracker(offsetrange.NewTracker(r))
}

func (f *readFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, s Shard, emit func(Block)) error {
	if !rt.TryClaim(int64(0)) {
		return nil
	}
	X, names, err := readShard(ctx, s.Path, f.Label)
	if err != nil {
		return err
	}
	n, c := X.Dims()
	chunk := int(f.Chunk)
	if chunk < 1 {
		chunk = max(n, 1)
	}
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		b := Block{Shard: s.Index, Start: int64(lo), Rows: int64(hi - lo), Cols: int64(c), X: make([]float64, 0, (hi-lo)*c)}
		if lo == 0 {
			b.Columns = names
		}
		for i := lo; i < hi; i++ {
			b.X = append(b.X, X.RawRowView(i)...)
		}
		emit(b)
	}
	return nil
}

// Read returns the rows of the shards as blocks of chunk rows (a whole
// shard per block when chunk ≤ 0).
func Read(s beam.Scope, shards []Shard, label string, chunk int) beam.PCollection {
	s = s.Scope("ReadShards")
	col := beam.CreateList(s, shards)
	return beam.ParDo(s, &readFn{Label: label, Chunk: int64(chunk)}, col)
}
