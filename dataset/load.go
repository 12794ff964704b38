package dataset

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kernelad/anomaly/internal/hugepage"
)

// Options control how a file is read.
type Options struct {
	// Label names the label column (CSV), the class attribute (ARFF) or
	// the array of anomaly labels (.npz). Empty means the defaults: "label"
	// or "y" for CSV, "class", "label", "y" or "outlier" (or a last nominal
	// attribute) for ARFF, y for .npz (anomaly labels when X is 2-D and y
	// holds only 1, 0 and -1, a class index otherwise; a named array is
	// anomaly labels whatever X's shape). Matching ignores case, except
	// for .npz array names.
	Label string
	// Shape, when set, is the sample shape of each row; its product must
	// equal the number of features. It overrides the shape of an N-d .npy/.npz.
	Shape []int
	// MaxBytes, when positive, bounds the memory the file's values may
	// take once read (8 bytes a value; 16 a stored value of a sparse
	// file). A loader refuses a file that needs more with a *MemoryError,
	// before allocating: from the header of an .npy array, from the rows
	// read so far and the file's size for CSV (which sizes its buffer from
	// that projection), as the values grow for LIBSVM and ARFF.
	MaxBytes int64
	// Buffer, when it has the capacity, receives the values of an .npy
	// array or of an .npz archive's X instead of a new allocation (the
	// Dataset's X then shares its memory), as gonum's dst arguments are
	// reused: a caller that reads many files of one size in a loop skips
	// the allocation and the runtime's zeroing of each. Other formats, and
	// an array too large for it, allocate as usual.
	Buffer []float64
	// Features, when positive, is the least number of features of a
	// LIBSVM text file: a file whose highest index is lower gets the
	// columns up to Features, empty, as its trailing features are
	// implicitly zero (scikit-learn's load_svmlight_file(n_features=…)).
	// A test file scored against a model fitted on wider rows needs it.
	// Other formats have their width in the file and ignore it.
	Features int
	// FeatureNames, when set, are the names of the features a model was
	// fitted on: a CSV column of one of these names is not taken as the
	// label column for its name (y, label), so a model fitted on x, y
	// beside a label column scores a file of x, y. A label column named
	// by Label is taken whatever its name.
	FeatureNames []string
	// Progress, when set, is called by a File's Scan as the pass goes,
	// after each chunk and at its end, from the goroutine that reads:
	// done bytes of the file read so far, of total (−1 when not known:
	// a stream). For gzip data the bytes are those of the compressed
	// file; for .npy and .npz the bytes of the array. It should return
	// at once (a progress bar's redraw is throttled by its caller).
	Progress func(done, total int64)
}

// values returns the buffer for n values: Buffer when it holds them,
// otherwise a new one (every value of it is written by the caller).
func (opt Options) values(n int) []float64 {
	if cap(opt.Buffer) >= n {
		return opt.Buffer[:n]
	}
	return hugepage.Floats(n)
}

// MemoryError is the error of a file whose values need more memory than
// Options.MaxBytes allows.
type MemoryError struct {
	What string // what needs the memory: "the 2000000 × 100 array X"
	Need int64  // bytes
	Max  int64  // Options.MaxBytes
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s need about %s, over the memory budget of %s", e.What, FormatBytes(e.Need), FormatBytes(e.Max))
}

// checkBytes returns a *MemoryError when need passes opt.MaxBytes; what
// (called only then) says what needs it.
func (opt Options) checkBytes(need int64, what func() string) error {
	if opt.MaxBytes > 0 && need > opt.MaxBytes {
		return &MemoryError{What: what(), Need: need, Max: opt.MaxBytes}
	}
	return nil
}

// FormatBytes writes a byte count for a message, in powers of 1000 as the
// command line's messages do: 1.5 GB, 320 MB.
func FormatBytes(b int64) string {
	switch f := float64(b); {
	case f >= 1e12:
		return fmt.Sprintf("%.3g TB", f/1e12)
	case f >= 1e9:
		return fmt.Sprintf("%.3g GB", f/1e9)
	case f >= 1e6:
		return fmt.Sprintf("%.3g MB", f/1e6)
	case f >= 1e3:
		return fmt.Sprintf("%.3g kB", f/1e3)
	}
	return fmt.Sprintf("%d B", b)
}

// MaxElements bounds the number of values a loader will accept from a file
// header (an .npy shape, for instance) before reading the data, so that a
// corrupt header cannot make a loader allocate without bound.
const MaxElements = 1 << 31

// readAtFunc reads a data file given as an io.ReaderAt of size bytes.
type readAtFunc = func(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error)

// formats maps a lower-case extension to its reader.
var formats = map[string]readAtFunc{
	".csv":      streamed(readCSV),
	".tsv":      streamed(readTSV),
	".npy":      readNPYAt,
	".npz":      readNPZAt,
	".libsvm":   readLIBSVMAt,
	".svm":      readLIBSVMAt,
	".svmlight": readLIBSVMAt,
	".txt":      readLIBSVMAt,
	".arff":     streamed(readARFF),
}

// streamed adapts a reader of a stream of size bytes (size < 0: unknown) to
// the formats table, which hands it the file as an io.ReaderAt.
func streamed(read func(r io.Reader, size int64, path string, opt Options) (*Dataset, error)) readAtFunc {
	return func(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error) {
		return read(io.NewSectionReader(ra, 0, size), size, path, opt)
	}
}

// Extensions returns the supported file extensions, sorted.
func Extensions() []string {
	return slices.Sorted(maps.Keys(formats))
}

// Load reads the data file at path; the format follows from the extension
// (see Extensions and the package documentation), and a further .gz
// extension reads the file through gzip (.csv.gz, .npy.gz, .arff.gz, the
// LIBSVM extensions; values are parsed as they are decompressed, so the
// text is never held whole). Every problem with the
// file is returned as a *Error naming the path.
func Load(path string, opt Options) (*Dataset, error) {
	read, err := reader(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Path: path, Err: openErr(err)}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, &Error{Path: path, Err: openErr(err)}
	}
	if st.IsDir() {
		return nil, &Error{Path: path, Err: errors.New("is a directory, not a data file")}
	}
	if !st.Mode().IsRegular() {
		// A named pipe or a device (<(zcat data.csv.gz), /dev/stdin) has
		// no size to read at: it is read as a stream, as standard input
		// is. It was 'empty file'.
		return ReadStream(f, streamFormat(path), path, opt)
	}
	return read(f, st.Size(), path, opt)
}

// streamFormat is the ReadStream format of a path: its extension, with
// .gz kept (".csv.gz").
func streamFormat(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".gz" {
		return strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path)))) + ext
	}
	return ext
}

// Read reads a data set of size bytes from ra. The name gives the format by
// its extension, as in Load, and is used in error messages and Source.
func Read(ra io.ReaderAt, size int64, name string, opt Options) (*Dataset, error) {
	read, err := reader(name)
	if err != nil {
		return nil, err
	}
	return read(ra, size, name, opt)
}

func reader(path string) (readAtFunc, error) {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == ".gz" {
		return gzipReader(path)
	}
	read, ok := formats[ext]
	if !ok {
		what := fmt.Sprintf("unknown extension %q", ext)
		switch ext {
		case "":
			what = "no file extension"
		case ".xlsx", ".xls", ".ods":
			return nil, &Error{Path: path, Err: errors.New("a spreadsheet is not read: save the sheet as CSV (UTF-8) and read that")}
		}
		return nil, &Error{Path: path, Err: fmt.Errorf("%s: supported are %s, and those but .npz compressed with gzip (as .csv.gz)", what, strings.Join(Extensions(), ", "))}
	}
	return read, nil
}

// Supported reports whether Load reads a file of this name: one of
// Extensions, or one of the formats gzip may hold (.csv.gz, .npy.gz, ...).
func Supported(name string) bool {
	_, err := reader(name)
	return err == nil
}

func openErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		// The path is already in our message; keep the cause.
		err = pe.Err
	}
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("no such file")
	case errors.Is(err, os.ErrPermission):
		return errors.New("permission denied")
	}
	return fmt.Errorf("cannot read: %v", err)
}

// applyShape checks opt.Shape (or an array's own sample shape) against the
// number of features d.
func applyShape(path string, shape []int, d int) ([]int, error) {
	if shape == nil {
		return nil, nil
	}
	p := 1
	for _, s := range shape {
		if s <= 0 {
			return nil, &Error{Path: path, Err: fmt.Errorf("shape %v: every dimension must be positive", shape)}
		}
		if p > MaxElements/s {
			return nil, &Error{Path: path, Err: fmt.Errorf("shape %v is too large", shape)}
		}
		p *= s
	}
	if p != d {
		return nil, &Error{Path: path, Err: fmt.Errorf("shape %v holds %d values per row but the data has %d features", shape, p, d)}
	}
	return append([]int(nil), shape...), nil
}
