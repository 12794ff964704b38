package method

import (
	"math/rand/v2"

	"github.com/kernelad/anomaly/detector"
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
	// rows. 0 means detector.DefaultContamination.
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
	Progress detector.ProgressFunc
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
	s.Float(&c.Contamination, "contamination", detector.DefaultContamination, param.Interval(0, 0.5, true, false),
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
	if m, ok := detector.Lookup(method); ok {
		scaleDefault = m.Info.Scale
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

// Register adds a method to the registry (detector.Register): its name,
// summary and state version (info); New, its constructor from a typed
// configuration whose Bind declares the parameters; and memory, its
// estimate of the peak bytes an operation allocates on data of a given
// size, beyond the input itself and the scale stage's copy, which
// detector.Memory adds. The estimate is float64 arithmetic: products of
// parameters and data sizes that pass int64's range give a huge
// estimate, or +Inf, not one wrapped round to a small or negative
// number. Register panics if the name is empty or taken or a function is
// nil: it runs in init functions, where such a mistake is a programming
// error.
func Register[C any, P interface {
	*C
	Config
}, D detector.Detector](info detector.Info, New func(C) (D, error), memory func(d D, op detector.Op, s detector.Size) float64) {
	if info.Name == "" || New == nil || memory == nil {
		panic("method: Register needs a name, a constructor and a memory estimate")
	}
	var zero C
	m := detector.Method{Info: info, Params: bindWith(info.Name, info.Scale, P(&zero)).Params()}
	var d D
	_, m.Labeled = any(d).(detector.LabeledFitter)
	m.New = func(params map[string]string, opts detector.Options) (detector.Detector, error) {
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
	m.Estimate = func(d detector.Detector, op detector.Op, s detector.Size) float64 {
		return memory(d.(D), op, s)
	}
	detector.Register(m)
}
