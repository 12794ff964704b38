package method

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/internal/kit"
	"github.com/kernelad/anomaly/param"
	"github.com/kernelad/anomaly/scale"
)

// DefaultScale is the scale stage's rule when a configuration leaves
// Common.Scale empty and the method registered no default of its own
// (Info.Scale): standardise each feature on the training rows. Chosen
// by make defaults (the selection protocol in the README): with it every
// kernel method's width rule sees features in comparable units, and the
// mean AUC over the 15 ADBench sets rose by 0.06–0.09 for kde, expose,
// ocsvm, svdd and kpca over no scaling; robust (median, IQR) and minmax
// ranked below it for every method.
const DefaultScale = scale.Standardize

// Common is the part of the configuration every method shares; each
// method's Config embeds it. Its zero value means the defaults.
type Common struct {
	// Contamination is the expected share of anomalies in the training
	// data, in (0, 0.5]: the threshold flags that share of the training
	// rows. 0 means DefaultContamination.
	Contamination float64
	// Scale is the rule of the scale stage fitted on the training rows in
	// front of the method and applied to every matrix it scores: standard
	// (mean and standard deviation), robust (median and IQR), minmax,
	// channel (tensor methods) or none; "" means the method's default
	// (Info.Scale, else DefaultScale). A constant column is centred and
	// left unscaled; sparse input is scaled without centring, so it stays
	// sparse.
	Scale string
	// Sample, when > 0, fits on a uniform random sample of that many
	// training rows (drawn without replacement with SampleSeed; every
	// row when there are fewer): a method that holds its training rows
	// (kde, kpca, the support vector machines) then fits a file of any
	// size in the memory of Sample rows.
	Sample int
	// SampleSeed is the source of the sample's draw; nil means a PCG
	// seeded with 0. A seeded source (param.Seeded, what sample_seed=N
	// makes) draws the same sample at every fit.
	SampleSeed rand.Source
	// Progress, when set, receives progress reports from long fits. It is
	// called from the fitting goroutine and must return quickly.
	Progress func(stage string, done, total int)
}

// Shared returns c; through embedding it gives the registry and NewBase
// the shared part of any method's configuration.
func (c *Common) Shared() *Common { return c }

// sampleRand returns the random stream of a sample draw.
func (c *Common) sampleRand() *rand.Rand {
	switch s := c.SampleSeed.(type) {
	case nil:
		return rand.New(rand.NewPCG(0, 0))
	case *param.Seeded:
		return rand.New(rand.NewPCG(s.Seed, s.Seed))
	default:
		return rand.New(s)
	}
}

// bind declares the shared parameters; scaleDefault is the method's
// default scale rule ("" means DefaultScale).
func (c *Common) bind(s *param.Set, scaleDefault string, tensor bool) {
	if scaleDefault == "" {
		scaleDefault = DefaultScale
	}
	help := "scale stage fitted on the training rows in front of the method: standard (mean, std), robust (median, IQR), minmax, channel (mean, std per index of a tensor sample's first mode) or none"
	if !tensor {
		// NewBase refuses channel for a method of vector rows.
		help = "scale stage fitted on the training rows in front of the method: standard (mean, std), robust (median, IQR), minmax or none (channel is for the tensor methods)"
	}
	s.Float(&c.Contamination, "contamination", DefaultContamination, param.Interval(0, 0.5, true, false),
		"expected share of anomalies in the training data; the threshold flags that share of the training rows")
	s.Choice(&c.Scale, "scale", scaleDefault, scale.Rules, nil, help)
	s.Int(&c.Sample, "sample", 0, param.AtLeast(0), "fit on a uniform random sample of this many training rows (0: every row)")
	s.Seed(&c.SampleSeed, "sample_seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, seed) }, "seed of the sample's draw")
}

// Config is what a method's configuration type provides: Bind declares
// its own parameters (name, field, default, range, help) once, and Shared
// comes from an embedded Common. A tensor method's configuration also
// has SampleShape() []int, the shape of one sample.
type Config interface {
	Bind(s *param.Set)
	Shared() *Common
}

// bindAll declares every parameter of cfg: the method's own, then the
// shared ones, with the registered method's default scale rule.
func bindAll(method string, cfg Config) *param.Set {
	var scaleDefault string
	if e, ok := kit.Lookup(method); ok {
		scaleDefault = e.Scale
	}
	return bindWith(method, scaleDefault, cfg)
}

// bindWith is bindAll with the default scale rule given (Register binds
// before the method is in the registry).
func bindWith(method, scaleDefault string, cfg Config) *param.Set {
	s := param.NewSet(method)
	cfg.Bind(s)
	_, tensor := cfg.(interface{ SampleShape() []int })
	cfg.Shared().bind(s, scaleDefault, tensor)
	return s
}

// ParseConfig returns the configuration the registry builds from
// key=value parameters (what --set gives), unset keys left unset, with
// the declared checks; unknown keys are errors.
func ParseConfig[C any, P interface {
	*C
	Config
}](method string, params map[string]string) (C, error) {
	var cfg C
	err := bindAll(method, P(&cfg)).Apply(params)
	return cfg, err
}

// Info is what a method says about itself when it registers; users read
// it back as a detector.Method.
type Info struct {
	Name    string            // the registry key, lower case: what detector.New takes
	Summary string            // one line, for `anomaly methods`
	Version int               // of the saved state: raise it when the state's type changes, and Load refuses older files
	Scale   string            // the default scale rule; "" means DefaultScale
	MinRows int               // the fewest training rows a fit needs (Base checks it); 0 means one
	Lighter map[string]string // settings under which a fit takes much less memory (kpca's method=nystrom), or nil
}

// Register adds a method to the registry that detector.New, detector.Load
// and detector.Lookup read (as a database/sql driver registers itself):
// its name, summary and state version (info); New, its constructor from a
// typed configuration whose Bind declares the parameters; and memory, its
// estimate of the peak bytes an operation allocates on data of a given
// size, beyond the input itself, which Memory completes. The estimate is
// float64 arithmetic: products of parameters and data sizes that pass
// int64's range give a huge estimate, or +Inf, not one wrapped round to a
// small or negative number. Register panics if the name is empty or taken
// or a function is nil: it runs in init functions, where such a mistake
// is a programming error.
func Register[C any, P interface {
	*C
	Config
}, D detector.Detector](info Info, New func(C) (D, error), memory func(d D, op Op, s Size) float64) {
	if info.Name == "" || New == nil || memory == nil {
		panic("method: Register needs a name, a constructor and a memory estimate")
	}
	var zero C
	e := kit.Entry{Name: info.Name, Summary: info.Summary, Version: info.Version, Scale: info.Scale,
		MinRows: info.MinRows, Lighter: info.Lighter, Params: bindWith(info.Name, info.Scale, P(&zero)).Params()}
	var d D
	_, e.Labeled = any(d).(interface {
		FitLabeled(ctx context.Context, X mat.Matrix, y []int) error
	})
	e.New = func(params map[string]string, progress func(string, int, int)) (any, error) {
		var cfg C
		if err := bindWith(info.Name, info.Scale, P(&cfg)).Apply(params); err != nil {
			return nil, err
		}
		P(&cfg).Shared().Progress = progress
		return New(cfg)
	}
	e.Parse = func(params map[string]string) error {
		var cfg C
		return bindWith(info.Name, info.Scale, P(&cfg)).Apply(params)
	}
	e.Estimate = estimate(func(d detector.Detector, op Op, s Size) float64 {
		return memory(d.(D), op, s)
	})
	kit.Register(e)
}

// estimate is a registered method's memory estimate (kit.Entry.Estimate).
type estimate func(d detector.Detector, op Op, s Size) float64

// Size describes the data an operation runs on.
type Size struct {
	Rows, Cols int
	// NonZeros is the number of stored values: Rows·Cols for a dense
	// matrix, the non-zeros of a sparse one.
	NonZeros int64
	// Sparse says the matrix is sparse (a *sparse.CSR).
	Sparse bool
	// Resident says the rows are a matrix already in memory (SizeOf sets
	// it): a fit that only reads them allocates no copy, where the rows
	// of a source (a file read a chunk at a time) are read into memory.
	Resident bool
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

// SizeOf returns the Size of X, a matrix in memory (Resident).
func SizeOf(X interface{ Dims() (int, int) }) Size {
	r, c := X.Dims()
	s := Size{Rows: r, Cols: c, NonZeros: int64(r) * int64(c), Resident: true}
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

// Memory estimates the peak bytes that op allocates on data of size s with
// detector d (built by detector.New or Load, or by a method's New): the
// method's own estimate plus, for a fit, the threshold's copy of the
// training scores and, for a score, the chunk the scale stage scales.
// Score estimates need a fitted detector. An estimate beyond int64's range
// is math.MaxInt64. A front end checks it against its memory budget
// before it reads the data.
func Memory(d detector.Detector, op Op, s Size) (int64, error) {
	desc, ok := detector.Describe(d)
	if !ok {
		return 0, fmt.Errorf("method: %T was not built by a registered method", d)
	}
	e, ok := kit.Lookup(desc.Method)
	if !ok {
		return 0, fmt.Errorf("method: method %q is not registered", desc.Method)
	}
	est := e.Estimate.(estimate)(d, op, s)
	if op == FitOp {
		// finish sorts a copy of the training scores for the threshold
		// (ThresholdFromScores): at most one per row. Uncounted, a gauss
		// fit of 10,000,000 × 2 rows held 610 MB live against 576.
		est += 8 * float64(s.Rows)
	}
	if rule := desc.Params["scale"]; rule != "" && rule != "none" && op == ScoreOp && s.Rows > 0 {
		// Base scales the rows a chunk at a time: a method that holds
		// every scaled row counts them in its own estimate. A dense
		// chunk is scaled into one reused buffer; a sparse one into a
		// new matrix, and the collector may not yet have freed the
		// previous chunk's (ocsvm on 400 × 50,000 rows of 8,000
		// non-zeros held both: 53.6 MB against one chunk's 33.6).
		chunks := 1.0
		if s.Sparse {
			chunks = 2
		}
		est += chunks * s.Bytes() * math.Min(1, float64(ChunkRows(s.Cols))/float64(s.Rows))
	}
	if !(est < math.MaxInt64) { // +Inf and NaN too
		return math.MaxInt64, nil
	}
	return int64(max(est, 0)), nil
}
