package detector

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

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

	// New builds an unfitted detector from key=value parameters.
	New func(params map[string]string, opts Options) (Detector, error)
	// Parse parses params as New would and reports the first unknown
	// key, unparsable value or value out of its declared range, without
	// building a detector.
	Parse func(params map[string]string) error
	// Estimate is the method's estimate of the peak bytes op allocates
	// on data of size s with d, beyond the data itself (Memory adds the
	// threshold's sorted scores and the chunk the scale stage scores
	// through).
	Estimate func(d Detector, op Op, s Size) float64

	legacy bool // the method embeds the legacy Base, which scales a whole copy
}

// Check parses params as the method's constructor would and reports the
// first unknown key, unparsable value or value out of its declared range,
// without building a detector (checks between parameters, and against the
// data, come when it is built).
func (m Method) Check(params map[string]string) error { return m.Parse(params) }

// Has reports whether the method declares a parameter of that name.
func (m Method) Has(name string) bool {
	return slices.ContainsFunc(m.Params, func(p Param) bool { return p.Name == name })
}

// Options carries what a caller of New sets besides the method's
// parameters.
type Options struct {
	// Progress receives the fit's progress reports (see ProgressFunc).
	Progress ProgressFunc
	// Seed, when not nil, is the seed of the run: it becomes the
	// method's seed parameter unless the parameters name one (a method
	// that makes no random choice ignores it).
	Seed *uint64
	// Shape is the sample shape of the data (an N-d array's trailing
	// dimensions), or nil for vector data: it becomes the shape
	// parameter of a tensor method unless the parameters name one, and a
	// shape they name must be this one.
	Shape []int
}

var (
	regMu    sync.RWMutex
	registry = map[string]Method{}
)

// RegisterLegacy registers a method that embeds the legacy Base (see
// package detector/method for Base and Register).
func RegisterLegacy[C any, P interface {
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
	m.New = func(params map[string]string, opts Options) (Detector, error) {
		var cfg C
		if err := bindWith(info.Name, info.Scale, P(&cfg)).Apply(params); err != nil {
			return nil, err
		}
		P(&cfg).Shared().Progress = opts.Progress
		return New(cfg)
	}
	m.Parse = func(params map[string]string) error {
		var cfg C
		return bindWith(info.Name, info.Scale, P(&cfg)).Apply(params)
	}
	m.Estimate = func(d Detector, op Op, s Size) float64 {
		return memory(d.(D), op, s)
	}
	m.legacy = true
	Register(m)
}

// Register adds a method to the registry, under m.Name; package
// detector/method's Register builds m from a method's typed
// configuration. It panics if the name is empty or taken or a function
// of m is nil: registration happens in init functions, where such a
// mistake is a programming error.
func Register(m Method) {
	if m.Name == "" || m.New == nil || m.Parse == nil || m.Estimate == nil {
		panic("detector: Register needs a name, New, Parse and Estimate")
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[m.Name]; dup {
		panic("detector: method " + m.Name + " registered twice")
	}
	registry[m.Name] = m
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
// parameters (what the command line's --set gives; nil for the
// defaults). Options, when given, add a progress callback, the run's
// seed and the data's sample shape (see Options). An unknown method is
// an *UnknownMethodError; unknown parameters and values out of range are
// errors naming the method and the key.
func New(name string, params map[string]string, opts ...Options) (Detector, error) {
	m, ok := Lookup(name)
	if !ok {
		return nil, &UnknownMethodError{Name: name, Suggest: suggestMethod(name), Available: Names()}
	}
	var o Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		panic("detector: New takes at most one Options")
	}
	p := make(map[string]string, len(params)+2)
	for k, v := range params {
		p[k] = v
	}
	if _, given := p["seed"]; !given && o.Seed != nil && m.Has("seed") {
		p["seed"] = strconv.FormatUint(*o.Seed, 10)
	}
	if len(o.Shape) > 0 && m.Has("shape") {
		if given, ok := p["shape"]; ok {
			sh, err := tensor.ParseShape(given)
			if err == nil && !slices.Equal(sh, o.Shape) {
				return nil, &param.Error{Method: name, Name: "shape", Value: given,
					Reason: fmt.Sprintf("the data's samples have shape %s; give that shape or drop the parameter", tensor.FormatShape(o.Shape))}
			}
		} else {
			p["shape"] = tensor.FormatShape(o.Shape)
		}
	}
	return m.New(p, o)
}

// UnknownMethodError is New's error for a method name this build does not
// have.
type UnknownMethodError struct {
	Name string
	// Suggest is the registered method the name most likely means (the
	// name in another case, a near miss, or the name scikit-learn or
	// PyOD gives it: OneClassSVM is ocsvm), or "".
	Suggest   string
	Available []string
}

func (e *UnknownMethodError) Error() string {
	msg := fmt.Sprintf("unknown method %q", e.Name)
	if e.Suggest != "" {
		msg += fmt.Sprintf("; did you mean %s?", e.Suggest)
	}
	return fmt.Sprintf("%s (available: %s)", msg, strings.Join(e.Available, ", "))
}

// methodAliases maps other libraries' names of the methods (lower case,
// without separators) to ours.
var methodAliases = map[string]string{
	"oneclasssvm": "ocsvm", "svm": "ocsvm", "ocsvm": "ocsvm",
	"isolationforest": "iforest", "iforest": "iforest", "isoforest": "iforest",
	"kerneldensity": "kde", "kde": "kde",
	"kernelpca": "kpca", "kpca": "kpca",
	"svdd": "svdd", "deepsvdd": "svdd",
	"ellipticenvelope": "gauss", "mahalanobis": "gauss", "gaussian": "gauss", "gauss": "gauss",
}

// suggestMethod returns the registered method name is most likely meant
// for, or "": the name in another case or with separators, a near miss
// (one edit in a name of four letters or fewer, two in a longer one) or
// another library's name of the method.
func suggestMethod(name string) string {
	key := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ' ' {
			return -1
		}
		return unicode.ToLower(r)
	}, name)
	if m, ok := methodAliases[key]; ok {
		if _, registered := Lookup(m); registered {
			return m
		}
	}
	best, bestD := "", 3
	for _, m := range Names() {
		limit := 2
		if len(m) <= 4 {
			limit = 1
		}
		if d := editDistance(key, m); d <= limit && d < bestD {
			best, bestD = m, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Memory estimates the peak bytes that op allocates on data of size s with
// detector d (built by the registry, or by a method's New): the method's
// own estimate plus the scale stage's copy of the data and, for a fit, the
// threshold's copy of the training scores. Score estimates
// need a fitted detector. An estimate beyond int64's range is
// math.MaxInt64.
func Memory(d Detector, op Op, s Size) (int64, error) {
	name, params, ok := Describe(d)
	if !ok {
		return 0, fmt.Errorf("detector: %T was not built by a registered method", d)
	}
	m, ok := Lookup(name)
	if !ok {
		return 0, fmt.Errorf("detector: method %q is not registered", name)
	}
	est := m.Estimate(d, op, s)
	if op == FitOp {
		// finish sorts a copy of the training scores for the threshold
		// (ThresholdFromScores): at most one per row. Uncounted, a gauss
		// fit of 10,000,000 × 2 rows held 610 MB live against 576.
		est += 8 * float64(s.Rows)
	}
	if rule := params["scale"]; rule != "" && rule != "none" {
		copied := s.Bytes()
		if !m.legacy {
			// Base scales the rows a chunk at a time: a method that
			// holds every scaled row counts them in its own estimate.
			copied = 0
			if op == ScoreOp && s.Rows > 0 {
				copied = s.Bytes() * math.Min(1, float64(ChunkRows(s.Cols))/float64(s.Rows))
			}
		}
		est += copied
	}
	if !(est < math.MaxInt64) { // +Inf and NaN too
		return math.MaxInt64, nil
	}
	return int64(max(est, 0)), nil
}

// Describe returns the method name and resolved parameters of a detector
// built by the registry or by a method's New.
func Describe(d Detector) (method string, params map[string]string, ok bool) {
	if km, ok := d.(kitModel); ok {
		method, params = km.Describe()
		return method, params, true
	}
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
	if km, ok := d.(kitModel); ok {
		return km.Warning()
	}
	if md, ok := d.(model); ok {
		return md.base().warning
	}
	return ""
}
