package detector

import (
	"fmt"
	"github.com/kernelad/anomaly/detector/internal/kit"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/tensor"
)

// Method describes a registered method, for listings (`anomaly methods`)
// and for checking parameters before a fit.
type Method struct {
	// Name is the registry key, lower case (expose, ocsvm, r1stm, ...).
	Name string
	// Summary is a one-line description.
	Summary string
	// Version is the version of the method's saved state; Load refuses a
	// model written with another version.
	Version int
	// Scale is the method's default scale rule (the scale parameter's
	// default).
	Scale string
	// MinRows is the fewest training rows a fit needs (a mean and a
	// spread, a tree split); 0 means one.
	MinRows int
	// Lighter is the parameter settings, if any, under which the method
	// fits in much less memory (kpca's method=nystrom: n × m instead of
	// n × n). A front end that refuses a fit over its memory budget
	// offers them when they would fit it.
	Lighter map[string]string
	// Params lists the declared parameters with their defaults.
	Params []param.Param
	// Labeled says the method's detectors are LabeledFitters
	// (semi-supervised).
	Labeled bool

	parse func(params map[string]string) error
}

// Check parses params as the method's constructor would and reports the
// first unknown key, unparsable value or value out of its declared range,
// without building a detector (checks between parameters, and against the
// data, come when it is built).
func (m Method) Check(params map[string]string) error { return m.parse(params) }

// Has reports whether the method declares a parameter of that name.
func (m Method) Has(name string) bool {
	return slices.ContainsFunc(m.Params, func(p param.Param) bool { return p.Name == name })
}

// Options carries what a caller of New sets besides the method's
// parameters.
type Options struct {
	// Progress, when set, receives the fit's progress reports: the
	// stage's name, the work done so far and the stage's total (≤ 0
	// when unknown); see the package documentation for every method's
	// stages. It is called from the fitting goroutine and must return
	// quickly.
	Progress func(stage string, done, total int)
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

// Names returns the registered method names in sorted order.
func Names() []string { return kit.Names() }

// Lookup returns the registered method with the given name.
func Lookup(name string) (Method, bool) {
	e, ok := kit.Lookup(name)
	if !ok {
		return Method{}, false
	}
	return Method{Name: e.Name, Summary: e.Summary, Version: e.Version, Scale: e.Scale, MinRows: e.MinRows,
		Lighter: e.Lighter, Params: e.Params, Labeled: e.Labeled, parse: e.Parse}, true
}

// New builds an unfitted detector of the named method from key=value
// parameters (what the command line's --set gives; nil for the
// defaults). Options, when given, add a progress callback, the run's
// seed and the data's sample shape (see Options). An unknown method is
// an *UnknownMethodError; unknown parameters and values out of range are
// errors naming the method and the key.
func New(name string, params map[string]string, opts ...Options) (Detector, error) {
	m, ok := Lookup(name)
	e, _ := kit.Lookup(name)
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
	return build(e, p, o.Progress)
}

// build builds a detector of the registered method e.
func build(e kit.Entry, params map[string]string, progress func(string, int, int)) (Detector, error) {
	d, err := e.New(params, progress)
	if err != nil {
		return nil, err
	}
	return d.(Detector), nil
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

// Description is what a detector built by New or Load says about
// itself.
type Description struct {
	// Method is the registered name of the detector's method.
	Method string
	// Params holds the resolved parameters it was built with, as
	// key=value text, defaults included (a copy).
	Params map[string]string
	// Columns names the columns it was fitted on (SetColumns, or the
	// model file's), or is nil.
	Columns []string
	// Warning describes a degenerate fit (every training score equal,
	// a solver stopped at its limit), "" otherwise.
	Warning string
}

// Describe describes d; false when d was not built by a registered
// method (New or Load).
func Describe(d Detector) (Description, bool) {
	km, ok := d.(kitModel)
	if !ok {
		return Description{}, false
	}
	method, params := km.Describe()
	return Description{Method: method, Params: params, Columns: km.Columns(), Warning: km.Warning()}, true
}
