package expose

import (
	"math/rand/v2"

	"github.com/kernelad/anomaly/detector"
)

// StateVersion is the version of the saved model state.
const StateVersion = 1

func init() {
	detector.Register(detector.Method{
		Name:    "expose",
		Summary: "EXPoSE kernel mean embedding on random features; batch or constant-time SGD (Schneider et al.)",
		Version: StateVersion,
		Params: []detector.Param{
			{Name: "kernel", Default: "rbf", Help: "shift-invariant kernel: rbf or laplacian"},
			{Name: "gamma", Default: "scale", Help: "kernel width γ, or scale = 1/(d·Var(X))"},
			{Name: "features", Default: "2000", Help: "number of random features D"},
			{Name: "map", Default: "rff", Help: "random feature map: rff or orf (orthogonal, rbf only)"},
			{Name: "solver", Default: "batch", Help: "batch (exact mean embedding) or sgd (Algorithm 1)"},
			{Name: "iterations", Default: "1000", Help: "SGD iterations T (0 = from epsilon)"},
			{Name: "epsilon", Default: "0", Help: "SGD accuracy ε; T = ⌈M²/ε²⌉ when iterations is not given"},
			{Name: "radius", Default: "1", Help: "kernel bound M: the SGD ball radius"},
			{Name: "chunk", Default: "512", Help: "rows transformed at a time"},
			{Name: "threshold_rows", Default: "10000", Help: "training rows scored to set the threshold (batch; -1 = all)"},
			{Name: "contamination", Default: "0.1", Help: "expected anomaly share of the training data, in (0, 0.5]"},
			{Name: "seed", Default: "0", Help: "seed of the feature map and the SGD samples"},
		},
		New: func(p *detector.Params) (detector.Detector, error) {
			cfg, err := configFromParams(p)
			if err != nil {
				return nil, err
			}
			return New(cfg)
		},
	})
}

// configFromParams maps registry parameters to a Config.
func configFromParams(p *detector.Params) (Config, error) {
	var cfg Config
	cfg.Kernel = p.Choice("kernel", "rbf", "rbf", "gaussian", "laplacian")
	cfg.Gamma = p.PositiveOr("gamma", "scale")
	cfg.Features = p.Int("features", 2000)
	p.Check(cfg.Features >= 1, "features", "must be at least 1")
	cfg.Map = p.Choice("map", RFF, RFF, ORF)
	cfg.Solver = p.Choice("solver", Batch, Batch, SGD)
	cfg.Epsilon = p.Float("epsilon", 0)
	p.Check(cfg.Epsilon >= 0, "epsilon", "must be positive")
	if p.Has("iterations") {
		cfg.Iterations = p.Int("iterations", 0)
		p.Check(cfg.Iterations >= 0, "iterations", "must be positive")
	} else if cfg.Epsilon == 0 {
		cfg.Iterations = 1000
	}
	cfg.Radius = p.Float("radius", 1)
	p.Check(cfg.Radius > 0, "radius", "must be positive")
	cfg.ChunkRows = p.Int("chunk", 512)
	p.Check(cfg.ChunkRows >= 1, "chunk", "must be at least 1")
	cfg.ThresholdRows = p.Int("threshold_rows", 10000)
	p.Check(cfg.ThresholdRows != 0, "threshold_rows", "must be positive, or -1 for all rows")
	cfg.Contamination = p.Float("contamination", 0.1)
	p.Check(cfg.Contamination > 0 && cfg.Contamination <= 0.5, "contamination", "must be in (0, 0.5]")
	seed := p.Uint64("seed", 0)
	cfg.Src = rand.NewPCG(seed, seed)
	return cfg, p.Err()
}
