package detector

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/tensor"
)

// Param documents one parameter of a method, for `anomaly methods` and
// error messages.
type Param = param.Param

// Info is what a method says about itself when it registers.
type Info struct {
	// Name is the registry key, lower case (expose, ocsvm, r1stm, ...).
	Name string
	// Summary is a one-line description.
	Summary string
	// Version is the version of the method's saved state; Load refuses a
	// model written with another version.
	Version int
	// Scale is the method's default scale stage rule; "" means
	// DefaultScale.
	Scale string
	// MinRows is the fewest training rows a fit needs (a mean and a
	// spread, a tree split); 0 means one. Base checks it before the scale
	// stage, with the same message for every method.
	MinRows int
	// Lighter is the parameter settings, if any, under which the method
	// fits in much less memory (kpca's method=nystrom: n × m instead of
	// n × n). A front end that refuses a fit over its memory budget
	// offers them when they would fit it.
	Lighter map[string]string
}

// Size describes the data an operation runs on.
type Size struct {
	Rows, Cols int
	// NonZeros is the number of stored values: Rows·Cols for a dense
	// matrix, the non-zeros of a sparse one.
	NonZeros int64
	// Sparse says the matrix is sparse (a *sparse.CSR).
	Sparse bool
}

// Bytes returns the memory of a matrix of size s: 8 bytes a value when
// it is dense; for a sparse (CSR) one its values, column indices and row
// pointers.
func (s Size) Bytes() float64 {
	if s.Sparse {
		return 16*float64(s.NonZeros) + 8*float64(s.Rows+1)
	}
	return 8 * float64(s.NonZeros)
}

// SizeOf returns the Size of X.
func SizeOf(X interface{ Dims() (int, int) }) Size {
	r, c := X.Dims()
	s := Size{Rows: r, Cols: c, NonZeros: int64(r) * int64(c)}
	if nz, ok := X.(interface{ NNZ() int }); ok {
		s.NonZeros, s.Sparse = int64(nz.NNZ()), true
	}
	return s
}

// Op is the operation a memory estimate is for.
type Op int

const (
	// FitOp is Fit (or FitLabeled) on the data.
	FitOp Op = iota
	// ScoreOp is Score of the data with a fitted model.
	ScoreOp
)

// SaveFactor is the peak bytes of saving a model (Save: the encoded state,
// one buffer of its size, and the copy of its arrays a MarshalBinary may
// make in building its state; most hand over their own arrays) in
// multiples of the model's float64 arrays, which a fit's estimate adds
// (the command line saves every model it fits). Measured as the bytes
// Save allocates with the collector off: 1.0× for expose (a 320 MB model,
// D = 2000 × 20,000 columns), r1svm (1.6 GB), kde, ocsvm and iforest;
// 1.9× for kpca and 2.0× for gauss, which copy the projection and the
// Cholesky factor. Gob, before the raw layout, took 6.1–7.5×.
const SaveFactor = 2

// Method describes a registered detector.
type Method struct {
	Info
	// Params lists the declared parameters with their defaults.
	Params []Param
	// Labeled says the method's detectors are LabeledFitters
	// (semi-supervised).
	Labeled bool

	build  func(params map[string]string, opts Options) (Detector, error)
	check  func(params map[string]string) error
	memory func(d Detector, op Op, s Size) float64
}

// Check parses params as the method's constructor would and reports the
// first unknown key, unparsable value or value out of its declared range,
// without building a detector (checks between parameters, and against the
// data, come when it is built).
func (m Method) Check(params map[string]string) error { return m.check(params) }

// Has reports whether the method declares a parameter of that name.
func (m Method) Has(name string) bool {
	return slices.ContainsFunc(m.Params, func(p Param) bool { return p.Name == name })
}

// Options carries what a caller of the registry sets besides the method's
// parameters.
type Options struct {
	// Progress is installed as the configuration's progress callback.
	Progress ProgressFunc
}

var (
	regMu    sync.RWMutex
	registry = map[string]Method{}
)

// Register adds a method to the registry: its name, summary and state
// version; New, its constructor from a typed configuration (whose Bind
// declares the parameters); and memory, its estimate of the peak bytes an
// operation allocates on data of a given size (beyond the input itself and
// the scale stage's copy, which the registry adds), in float64 arithmetic:
// products of parameters and data sizes (features × columns × workers)
// that pass int64's range give a huge estimate, or +Inf, not one wrapped
// round to a small or negative number. Register panics if the
// name is empty or taken or a function is nil: registration happens in
// init functions, where such a mistake is a programming error.
func Register[C any, P interface {
	*C
	Config
}, D Detector](info Info, New func(C) (D, error), memory func(d D, op Op, s Size) float64) {
	if info.Name == "" || New == nil || memory == nil {
		panic("detector: Register needs a name, a constructor and a memory estimate")
	}
	var zero C
	m := Method{Info: info, Params: bindWith(info.Name, info.Scale, P(&zero)).Params()}
	var d D
	_, m.Labeled = any(d).(LabeledFitter)
	m.build = func(params map[string]string, opts Options) (Detector, error) {
		var cfg C
		if err := bindWith(info.Name, info.Scale, P(&cfg)).Apply(params); err != nil {
			return nil, err
		}
		P(&cfg).Shared().Progress = opts.Progress
		return New(cfg)
	}
	m.check = func(params map[string]string) error {
		var cfg C
		return bindWith(info.Name, info.Scale, P(&cfg)).Apply(params)
	}
	m.memory = func(d Detector, op Op, s Size) float64 {
		return memory(d.(D), op, s)
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[info.Name]; dup {
		panic("detector: method " + info.Name + " registered twice")
	}
	registry[info.Name] = m
}

// Names returns the registered method names in sorted order.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the registered method with the given name.
func Lookup(name string) (Method, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	m, ok := registry[name]
	return m, ok
}

// New builds an unfitted detector of the named method from key=value
// parameters. Unknown methods and parameters, and values out of range, are
// errors.
func New(name string, params map[string]string) (Detector, error) {
	return Build(name, params, Options{})
}

// Build is New with options (a progress callback).
func Build(name string, params map[string]string, opts Options) (Detector, error) {
	m, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown method %q (available: %s)", name, strings.Join(Names(), ", "))
	}
	return m.build(params, opts)
}

// Memory estimates the peak bytes that op allocates on data of size s with
// detector d (built by the registry, or by a method's New): the method's
// own estimate plus the scale stage's copy of the data and, for a fit, the
// threshold's copy of the training scores. Score estimates
// need a fitted detector. An estimate beyond int64's range is
// math.MaxInt64.
func Memory(d Detector, op Op, s Size) (int64, error) {
	b, err := baseOf(d, "detector")
	if err != nil {
		return 0, err
	}
	m, ok := Lookup(b.method)
	if !ok {
		return 0, fmt.Errorf("detector: method %q is not registered", b.method)
	}
	est := m.memory(d, op, s)
	if op == FitOp {
		// finish sorts a copy of the training scores for the threshold
		// (ThresholdFromScores): at most one per row. Uncounted, a gauss
		// fit of 10,000,000 × 2 rows held 610 MB live against 576.
		est += 8 * float64(s.Rows)
	}
	if b.rule != "" && b.rule != "none" {
		if s.Sparse {
			est += 16 * float64(s.NonZeros)
		} else {
			est += 8 * float64(s.NonZeros)
		}
	}
	if !(est < math.MaxInt64) { // +Inf and NaN too
		return math.MaxInt64, nil
	}
	return int64(max(est, 0)), nil
}

// Describe returns the method name and resolved parameters of a detector
// built by the registry or by a method's New.
func Describe(d Detector) (method string, params map[string]string, ok bool) {
	md, ok := d.(model)
	if !ok {
		return "", nil, false
	}
	b := md.base()
	return b.method, b.Params(), true
}

// Warning returns the warning of a fit whose model is degenerate (every
// training score equal), "" otherwise.
func Warning(d Detector) string {
	if md, ok := d.(model); ok {
		return md.base().warning
	}
	return ""
}

// Task describes what a method is prepared for: the data's own sample
// shape (nil for vector data) and the run's seed.
type Task struct {
	// Shape is the sample shape the data file carries (an N-d array), or
	// nil.
	Shape []int
	// Seed, when not nil, is the seed of the run: it becomes the method's
	// seed parameter unless the parameters name one.
	Seed *uint64
	// Options are passed to the method's constructor.
	Options
}

// Prepare builds an unfitted detector of the named method for a data set:
// the parameters as given, plus the run's seed (when the method has a seed
// parameter and params do not set it) and the data's sample shape (when
// the method takes a shape and params do not set it). A shape in params
// that differs from the data's own is a parameter error, as is a method
// that takes no shape asked to read tensor samples of another length. It
// returns the detector and the parameters it was built from. This is the
// one sequence the command line, bench and the Beam module use.
func Prepare(name string, params map[string]string, t Task) (Detector, map[string]string, error) {
	m, ok := Lookup(name)
	if !ok {
		return nil, nil, fmt.Errorf("unknown method %q (available: %s)", name, strings.Join(Names(), ", "))
	}
	p := make(map[string]string, len(params)+2)
	for k, v := range params {
		p[k] = v
	}
	if _, given := p["seed"]; !given && t.Seed != nil && m.Has("seed") {
		p["seed"] = strconv.FormatUint(*t.Seed, 10)
	}
	if len(t.Shape) > 0 && m.Has("shape") {
		if given, ok := p["shape"]; ok {
			sh, err := tensor.ParseShape(given)
			if err == nil && !slices.Equal(sh, t.Shape) {
				return nil, nil, &param.Error{Method: name, Name: "shape", Value: given,
					Reason: fmt.Sprintf("the data's samples have shape %s; give that shape or drop the parameter", tensor.FormatShape(t.Shape))}
			}
		} else {
			p["shape"] = tensor.FormatShape(t.Shape)
		}
	}
	d, err := m.build(p, t.Options)
	if err != nil {
		return nil, nil, err
	}
	return d, p, nil
}
