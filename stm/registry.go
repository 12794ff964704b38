package stm

import (
	"math/rand/v2"
	"strconv"

	"github.com/kernelad/anomaly/detector"
)

func commonParams() []detector.Param {
	return []detector.Param{
		{Name: "shape", Default: "", Help: "sample tensor shape, e.g. 24x51 (required; taken from N-d .npy/.npz files)"},
		{Name: "rank", Default: "1", Help: "CP rank R of every sample (≥ 1; ≤ the smallest side)"},
		{Name: "gamma", Default: "median", Help: "Gaussian width on the factor vectors (> 0) or median = 1/median Σ_n‖x^(n)−y^(n)‖²"},
		{Name: "gamma_factor", Default: strconv.FormatFloat(DefaultGammaFactor, 'g', -1, 64), Help: "factor on the median rule's γ (gamma=median)"},
		{Name: "nu", Default: strconv.FormatFloat(DefaultNu, 'g', -1, 64), Help: "ν of the one-class machine, in (0, 1]"},
		{Name: "cp_tol", Default: "1e-8", Help: "CP-ALS tolerance on the change of relative error"},
		{Name: "cp_max_iter", Default: "100", Help: "CP-ALS sweep limit"},
		{Name: "seed", Default: "1", Help: "seed of the median rule's pairs and the random features"},
		{Name: "contamination", Default: "0.1", Help: "share of training rows above the threshold, in (0, 0.5]"},
	}
}

func gammaParam(p *detector.Params) float64 { return p.PositiveOr("gamma", "median") }

func commonFromParams(p *detector.Params) Common {
	var c Common
	c.Shape = p.Ints("shape", nil)
	c.Rank = p.Int("rank", 1)
	p.Check(c.Rank >= 1, "rank", "must be ≥ 1")
	c.Gamma = gammaParam(p)
	c.GammaFactor = p.Float("gamma_factor", DefaultGammaFactor)
	p.Check(c.GammaFactor > 0, "gamma_factor", "must be > 0")
	c.Nu = p.Float("nu", DefaultNu)
	p.Check(c.Nu > 0 && c.Nu <= 1, "nu", "must be in (0, 1]")
	c.CPTol = p.Float("cp_tol", 1e-8)
	p.Check(c.CPTol > 0, "cp_tol", "must be > 0")
	c.CPMaxIter = p.Int("cp_max_iter", 100)
	p.Check(c.CPMaxIter >= 1, "cp_max_iter", "must be ≥ 1")
	seed := p.Uint64("seed", 1)
	c.Src = rand.NewPCG(seed, 0x57a7)
	c.Contamination = p.Float("contamination", detector.DefaultContamination)
	p.Check(c.Contamination > 0 && c.Contamination <= 0.5, "contamination", "must be in (0, 0.5]")
	return c
}

func init() {
	detector.Register(detector.Method{
		Name:    "1stm",
		Summary: "one-class support tensor machine: CP factors, the kernel of eq. 4.18, the OC-SVM dual through smo; score ρ − Σα_i K(X_i, X)",
		Version: 1,
		Params: append(commonParams(),
			detector.Param{Name: "tol", Default: "0.001", Help: "solver tolerance on the KKT violation"},
			detector.Param{Name: "cache_mb", Default: "200", Help: "kernel column cache budget in MB"}),
		New: func(p *detector.Params) (detector.Detector, error) {
			cfg := OneSTMConfig{Common: commonFromParams(p)}
			cfg.Tol = p.Float("tol", 1e-3)
			p.Check(cfg.Tol > 0, "tol", "must be > 0")
			cfg.CacheMB = p.Float("cache_mb", 200)
			p.Check(cfg.CacheMB > 0, "cache_mb", "must be > 0")
			if err := p.Err(); err != nil {
				return nil, err
			}
			return NewOneSTM(cfg)
		},
	})
	linParams := []detector.Param{
		{Name: "features", Default: "1000", Help: "number of random Fourier features"},
		{Name: "tol", Default: "0.001", Help: "tolerance of the linear one-class machine"},
		{Name: "max_pass", Default: "1000", Help: "passes limit of the linear one-class machine"},
	}
	detector.Register(detector.Method{
		Name:    "r1stm",
		Summary: "randomised one-class support tensor machine: random Fourier features of the CP components, linear one-class machine; score ρ − ⟨w, z(X)⟩",
		Version: 1,
		Params: append(append(commonParams(), linParams...),
			detector.Param{Name: "construction", Default: "concat", Help: "concat (one random map on the concatenated factor vectors) or permode (the paper's per-mode features and random rank-one projections)"},
			detector.Param{Name: "mode_features", Default: strconv.Itoa(DefaultModeFeatures), Help: "random features per mode for construction=permode"}),
		New: func(p *detector.Params) (detector.Detector, error) {
			cfg := R1STMConfig{Common: commonFromParams(p)}
			c, err := ParseConstruction(p.Choice("construction", "concat", "concat", "permode"))
			cfg.Construction = c
			if err != nil {
				return nil, err
			}
			cfg.ModeFeatures = p.Int("mode_features", DefaultModeFeatures)
			p.Check(cfg.ModeFeatures >= 1, "mode_features", "must be ≥ 1")
			cfg.Features = p.Int("features", DefaultFeatures)
			p.Check(cfg.Features >= 1, "features", "must be ≥ 1")
			cfg.Tol = p.Float("tol", 1e-3)
			p.Check(cfg.Tol > 0, "tol", "must be > 0")
			cfg.MaxPass = p.Int("max_pass", 1000)
			p.Check(cfg.MaxPass >= 1, "max_pass", "must be ≥ 1")
			if err := p.Err(); err != nil {
				return nil, err
			}
			return NewR1STM(cfg)
		},
	})
	detector.Register(detector.Method{
		Name:    "r1svm",
		Summary: "randomised one-class SVM: random Fourier features of the rows, linear one-class machine (the R1SVM baseline)",
		Version: 1,
		Params: append([]detector.Param{
			{Name: "gamma", Default: "median", Help: "RBF width (> 0) or median = 1/median ‖x−y‖²"},
			{Name: "gamma_factor", Default: strconv.FormatFloat(DefaultGammaFactor, 'g', -1, 64), Help: "factor on the median rule's γ (gamma=median)"},
			{Name: "nu", Default: strconv.FormatFloat(DefaultNu, 'g', -1, 64), Help: "ν of the one-class machine, in (0, 1]"},
			{Name: "seed", Default: "1", Help: "seed of the median rule's pairs and the random features"},
			{Name: "contamination", Default: "0.1", Help: "share of training rows above the threshold, in (0, 0.5]"},
		}, linParams...),
		New: func(p *detector.Params) (detector.Detector, error) {
			var cfg R1SVMConfig
			cfg.Gamma = gammaParam(p)
			cfg.GammaFactor = p.Float("gamma_factor", DefaultGammaFactor)
			p.Check(cfg.GammaFactor > 0, "gamma_factor", "must be > 0")
			cfg.Nu = p.Float("nu", DefaultNu)
			p.Check(cfg.Nu > 0 && cfg.Nu <= 1, "nu", "must be in (0, 1]")
			cfg.Src = rand.NewPCG(p.Uint64("seed", 1), 0x57a7)
			cfg.Contamination = p.Float("contamination", detector.DefaultContamination)
			p.Check(cfg.Contamination > 0 && cfg.Contamination <= 0.5, "contamination", "must be in (0, 0.5]")
			cfg.Features = p.Int("features", DefaultFeatures)
			p.Check(cfg.Features >= 1, "features", "must be ≥ 1")
			cfg.Tol = p.Float("tol", 1e-3)
			p.Check(cfg.Tol > 0, "tol", "must be > 0")
			cfg.MaxPass = p.Int("max_pass", 1000)
			p.Check(cfg.MaxPass >= 1, "max_pass", "must be ≥ 1")
			if err := p.Err(); err != nil {
				return nil, err
			}
			return NewR1SVM(cfg)
		},
	})
}
