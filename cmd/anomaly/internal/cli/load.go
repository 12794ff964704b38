package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	kit "github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/output"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/tensor"
	"github.com/spf13/cobra"
)

// dataFlags are the flags that name a data file and how to read it.
type dataFlags struct {
	data, format, label, maxMemory string
	stdin                          io.Reader // what --data - reads
}

// bind adds --data (dataUsage is its help), --data-format, --label and
// --max-memory (memoryUsage) to c; c's standard input is what --data -
// reads.
func (o *dataFlags) bind(c *cobra.Command, dataUsage, memoryUsage string) {
	f := c.Flags()
	f.StringVar(&o.data, "data", "", dataUsage+" (- for standard input)")
	f.StringVar(&o.format, "data-format", "", "format of standard input (--data -) or of a named pipe such as <(zcat f.csv.gz): csv (default), tsv, arff, libsvm or npy, each also gzipped, as csv.gz")
	f.StringVar(&o.label, "label", "", labelUsage)
	f.StringVar(&o.maxMemory, "max-memory", "", memoryUsage)
	o.stdin = os.Stdin
	c.PreRun = func(c *cobra.Command, _ []string) { o.stdin = c.InOrStdin() }
}

// name is the data as messages name it: the path, or "standard input".
func (o dataFlags) name() string {
	if o.data == "-" {
		return "standard input"
	}
	return o.data
}

// load reads the data; every failure is bad data (exit 2) and names the
// file. The values read may take at most the memory budget (maxMemory, the
// --max-memory flag): a larger file is refused from its header, or from
// the rows read so far, before its buffer is allocated, not after the
// machine has run out of memory reading it. features is the least width
// of a LIBSVM file (dataset.Options.Features; 0 for its own).
func (o dataFlags) load(features int, names ...string) (*dataset.Dataset, error) {
	budget, source, err := memoryBudget(o.maxMemory)
	if err != nil {
		return nil, err
	}
	opt := dataset.Options{Label: o.label, MaxBytes: budget, Features: features, FeatureNames: names}
	in, err := o.openStream()
	if err != nil {
		return nil, err
	}
	var ds *dataset.Dataset
	if in != nil {
		if in.file != nil {
			defer in.file.Close()
		}
		ds, err = dataset.ReadStream(in.r, in.format, o.name(), opt)
	} else {
		ds, err = dataset.Load(o.data, opt)
	}
	if err != nil {
		return nil, o.readErr(err, source)
	}
	if err := indexPastModel(ds, features, o.name()); err != nil {
		return nil, err
	}
	return ds, nil
}

// streamIn is data read as a stream, in one pass.
type streamIn struct {
	r      io.Reader
	file   *os.File // the named pipe or device opened (nil: standard input), to close after
	format string   // the format's extension, as ".csv"
}

// openStream opens the data when it is a stream: standard input, or with
// --data-format a named pipe or device such as bash's <(zcat
// data.csv.gz), whose path has no extension to go by. A path read by its
// extension gives nil (and --data-format is a usage error there).
func (o dataFlags) openStream() (*streamIn, error) {
	stream := o.data == "-"
	if st, err := os.Stat(o.data); o.format != "" && err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		stream = true
	}
	if !stream {
		if o.format != "" {
			return nil, usagef("--data-format applies to standard input (--data -) and named pipes; %s is read by its extension", o.data)
		}
		return nil, nil
	}
	format := "." + strings.TrimPrefix(o.format, ".")
	if o.format == "" {
		format = ".csv"
	}
	if !slices.Contains(dataset.StreamFormats(), strings.ToLower(format)) {
		return nil, usagef("--data-format %q: a stream is read as csv, tsv, arff, libsvm or npy, each also gzipped (as csv.gz)", o.format)
	}
	if o.data == "-" {
		return &streamIn{r: o.stdin, format: format}, nil
	}
	f, err := os.Open(o.data)
	if err != nil {
		return nil, dataErr(fmt.Errorf("%s: cannot open: %v", o.data, output.Unwrap(err)))
	}
	return &streamIn{r: f, file: f, format: format}, nil
}

// readErr classifies an error reading the data: over the memory budget
// (source names where the budget comes from), else bad data naming the
// file.
func (o dataFlags) readErr(err error, source string) error {
	if e := overBudgetErr(err, source); e != nil {
		return e
	}
	return dataFileErr(o.name(), err)
}

// indexPastModel names the first row of a sparse (LIBSVM) file holding a
// feature index past the features a model was fitted on (features > 0):
// the file's width is its highest index, and "data has 5 columns, the
// model was fitted on 2" did not say where the 5 came from.
func indexPastModel(ds *dataset.Dataset, features int, name string) error {
	m, ok := ds.X.(*sparse.CSR)
	if !ok || features <= 0 {
		return nil
	}
	rows, cols := m.Dims()
	if cols <= features {
		return nil
	}
	for i := 0; i < rows; i++ {
		ind, _ := csr.Row(m, i)
		for _, j := range ind {
			if j >= features {
				return dataErr(fmt.Errorf("%s: data row %d has feature index %d, past the %d features the model was fitted on (indices 1 to %d)", name, i+1, j+1, features, features))
			}
		}
	}
	return nil
}

// overBudgetErr is err, a data file refused for the memory budget
// (*dataset.MemoryError), as bad data that says where the budget came
// from and what to change; nil for any other error.
func overBudgetErr(err error, source string) error {
	var me *dataset.MemoryError
	if !errors.As(err, &me) {
		return nil
	}
	return dataErr(fmt.Errorf("%v (%s); read fewer rows or columns, or raise --max-memory", err, source))
}

// dataFileErr is err, from reading the data file path, as bad data (exit
// 2) that names the file: a *dataset.Error names it already.
func dataFileErr(path string, err error) error {
	var de *dataset.Error
	if !errors.As(err, &de) {
		err = fmt.Errorf("%s: %w", path, err)
	}
	return dataErr(err)
}

// loadModel reads a model file written by fit. A missing, unreadable,
// corrupt, truncated or other-version file is bad data (exit 2).
func loadModel(path string) (name string, params map[string]string, d detector.Detector, err error) {
	if path == "-" {
		// Standard input is the data's (--data -); a model's size sets
		// the memory its loading is allowed.
		return "", nil, nil, usagef("--model -: a model is read from a file, not from standard input; give the file fit wrote")
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, nil, dataErr(fmt.Errorf("%s: cannot open model: %v", path, output.Unwrap(err)))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", nil, nil, dataErr(fmt.Errorf("%s: is a directory, not a model file", path))
	}
	d, err = detector.Load(f)
	if err != nil {
		return "", nil, nil, dataErr(fmt.Errorf("%s: %w", path, err))
	}
	desc, _ := detector.Describe(d)
	return desc.Method, desc.Params, d, nil
}

// modelLoadFactor bounds the peak memory of loading a model, in multiples
// of its file's size: the file's bytes, the decoded state (one exact
// allocation per array) and the structures a method builds from it.
// Measured as the bytes Load allocates with the collector off: 1.8–2.0×
// for iforest, expose, r1svm (a 1.6 GB model), kde and ocsvm, 2.9× for
// kpca, 4.0× for gauss, which refactors its covariance (gob, before the
// raw layout, took 3.7–12×); as peak RSS, runtime and scoring included, a
// 40 MB kde model (whose load rebuilds its tree) scored 2,000 rows in
// 134 MB under any budget from 125 MB up, 3.4×.
const modelLoadFactor = 4.0

// labelUsage is the help of --label, the label column of a data file.
const labelUsage = "name of the label column (CSV), class attribute (ARFF) or array of anomaly labels (.npz: --label y reads a tensor file's y as 1 = anomaly, 0 = normal rather than as a class index)"

// applyOptions are the flags of the commands that apply a fitted model to
// the rows of a data file (score, eval).
type applyOptions struct {
	dataFlags
	model string
	// notes, when set, receives the data file's notes (a skipped id
	// column, LIBSVM's ±1 labels), as fit prints them.
	notes io.Writer
}

// bind adds --model and the data flags (dataUsage is the help of --data)
// to c.
func (o *applyOptions) bind(c *cobra.Command, dataUsage string) {
	c.Flags().StringVar(&o.model, "model", "", "model file written by 'anomaly fit'")
	o.dataFlags.bind(c, dataUsage, "memory scoring may plan to use, as in 4GB (default: 75% of the machine's, the container's or the address-space limit)")
}

// appliedModel is the model an apply command loads, with what the checks
// of the data it is applied to need.
type appliedModel struct {
	d        detector.Detector
	name     string            // the method
	params   map[string]string // the model's parameters
	size     int64             // the model file's bytes: resident while it scores
	features int               // the model's width (0: not known)
	columns  []string          // the model's feature names (nil: none)
	budget   int64             // --max-memory, or the default budget
	source   string            // where the budget comes from
}

// loadApplied reads --model within the memory budget (--max-memory). The
// budget comes first: it also sets the collector's soft limit, which the
// model's decoding needs as much as the scoring.
func (o applyOptions) loadApplied() (appliedModel, error) {
	var m appliedModel
	var err error
	if m.budget, m.source, err = memoryBudget(o.maxMemory); err != nil {
		return m, err
	}
	if st, err := os.Stat(o.model); err == nil && st.Mode().IsRegular() {
		m.size = st.Size()
		if need := int64(min(modelLoadFactor*float64(st.Size()), math.MaxInt64)); need > m.budget {
			return m, dataErr(fmt.Errorf("%s: loading the model needs about %s (%g× its %s), over the memory budget of %s (%s); raise --max-memory",
				o.model, dataset.FormatBytes(need), modelLoadFactor, dataset.FormatBytes(st.Size()), dataset.FormatBytes(m.budget), m.source))
		}
	}
	if m.name, m.params, m.d, err = loadModel(o.model); err != nil {
		return m, err
	}
	// A LIBSVM file's width is its highest index: one that never uses the
	// model's last features is as wide as the model (they are zero).
	if dm, ok := m.d.(interface{ Dim() int }); ok {
		m.features = dm.Dim()
	}
	// The model's feature names are features in the file too (a model
	// fitted on x, y beside a label column scores a file of x, y, whose
	// y was taken for its labels).
	desc, _ := detector.Describe(m.d)
	m.columns = desc.Columns
	return m, nil
}

// load reads the model and the data file to apply it to, checking that
// the file's column names are the model's (when both have names), that a
// tensor file's sample shape is the model's and that scoring it fits the
// memory budget (--max-memory).
func (o applyOptions) load() (detector.Detector, *dataset.Dataset, error) {
	m, err := o.loadApplied()
	if err != nil {
		return nil, nil, err
	}
	d := m.d
	ds, err := o.dataFlags.load(m.features, m.columns...)
	if err != nil {
		return nil, nil, err
	}
	printNotes(o.notes, o.name(), ds.Notes)
	// As scikit-learn's predict after a fit on named columns: a file whose
	// columns are the model's in another order, or others, would be
	// scored without complaint, and wrongly.
	if err := detector.CheckColumns(d, ds.Columns); err != nil {
		var ce *detector.ColumnsError
		if errors.As(err, &ce) {
			ce.Numbers = ds.ColumnNumbers // as the file's notes number them
		}
		return nil, nil, dataErr(fmt.Errorf("%s: %w", o.name(), err))
	}
	if err := checkShape(m.params, ds, o.name()); err != nil {
		return nil, nil, err
	}
	if err := checkMemory(d, kit.ScoreOp, ds, o.maxMemory, m.name, nil, m.size); err != nil {
		return nil, nil, err
	}
	return d, ds, nil
}

// checkShape compares the sample shape a tensor file carries with the
// shape the model was fitted on (its "shape" parameter). Rows of equal
// length can still hold samples of another shape (51×24 against 24×51),
// which only the file's own shape reveals. Either side missing: no check.
func checkShape(params map[string]string, ds *dataset.Dataset, path string) error {
	if params["shape"] == "" || len(ds.Shape) == 0 {
		return nil
	}
	ms, err := tensor.ParseShape(params["shape"])
	if err != nil || !slices.Equal(ms, ds.Shape) {
		return dataErr(fmt.Errorf("%s: samples have shape %s, the model was fitted on shape %s", path, tensor.FormatShape(ds.Shape), params["shape"]))
	}
	return nil
}

// detectorErr classifies an error a detector returned on a data file: bad
// data naming the file (the detector's own errors — *detector.DimError,
// *detector.ValueError, *detector.EmptyError — carry row, column and feature
// counts).
func detectorErr(path string, err error) error {
	var ee *exitError
	if errors.As(err, &ee) { // classified already (a panic recovered by beside)
		return err
	}
	return dataErr(fmt.Errorf("%s: %w", path, err))
}

// checkNormalClass refuses a --normal-class below −1 (−1 is none).
func checkNormalClass(c int) error {
	if c < -1 {
		return usagef("--normal-class %d: a class is an index ≥ 0 (or -1 for none)", c)
	}
	return nil
}

// normalClassLabels turns a file's class indices (ds.Class: the tensor .npz
// files, multi-class LIBSVM or ARFF files) into anomaly labels: class normal
// is 0, every other class 1.
func normalClassLabels(ds *dataset.Dataset, path string, normal int) (*dataset.Dataset, error) {
	if ds.Class == nil {
		return nil, usagef("--normal-class: %s has anomaly labels, not class indices; drop --normal-class", path)
	}
	out, err := dataset.NormalClass(ds, normal)
	if err != nil {
		return nil, dataErr(fmt.Errorf("%s: no row of class %d", path, normal))
	}
	return out, nil
}

// rowsOfClass returns the rows of ds whose class is normal: fit
// --normal-class trains on the normal class only.
func rowsOfClass(ds *dataset.Dataset, path string, normal int) (*dataset.Dataset, error) {
	lab, err := normalClassLabels(ds, path, normal)
	if err != nil {
		return nil, err
	}
	var keep []int
	for i, v := range lab.Y {
		if v == 0 {
			keep = append(keep, i)
		}
	}
	out := dataset.Subset(lab, keep) // CSR input stays CSR
	out.Y, out.Class, out.Split = nil, nil, nil
	return out, nil
}

// noLabels is eval's error for a file without anomaly labels; classes
// says it has class indices instead.
func noLabels(classes bool, path string) error {
	if classes {
		// The way out depends on the format: "--label y" means nothing to
		// an ARFF or LIBSVM file.
		ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(path), ".gz")))
		switch ext {
		case ".arff":
			return usagef("%s holds classes, not anomaly labels: name the normal class with --normal-class N, N the 0-based position of its value in the class attribute's declaration", path)
		case ".libsvm", ".svm", ".svmlight", ".txt":
			return usagef("%s holds class labels, not anomaly labels (1/0, or +1/-1 by LIBSVM's one-class convention): name the normal class with --normal-class N, N its label", path)
		}
		return usagef("%s holds class indices, not anomaly labels: name the normal class with --normal-class N (or, if its y is 1 = anomaly, 0 = normal, give --label y)", path)
	}
	return dataErr(fmt.Errorf("%s: no labels: eval needs a label column (label or y, or --label NAME) or a y array", path))
}

// paramOrDataErr classifies an error from building or fitting a detector
// on a data file: a parameter the data shows to be out of range (more
// components than rows, a rank above the smallest side) is a usage error
// (exit 1); anything else is bad data (exit 2) naming the file.
func paramOrDataErr(path string, err error) error {
	var pe *param.Error
	if errors.As(err, &pe) {
		return usageErr(err)
	}
	return detectorErr(path, err)
}

// printNotes writes a data file's notes to w (nil: nowhere).
func printNotes(w io.Writer, name string, notes []string) {
	if w == nil {
		return
	}
	for _, n := range notes {
		fmt.Fprintf(w, "anomaly: note: %s: %s\n", name, n)
	}
}
