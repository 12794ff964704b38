package smoparams

import (
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/smo"
)

// Params documents the solver's keys for a method's registry entry.
func Params() []detector.Param {
	return []detector.Param{
		{Name: "tol", Default: "0.001", Help: "solver tolerance on the KKT violation (LIBSVM -e)"},
		{Name: "cache_mb", Default: "200", Help: "kernel column cache budget in MB (LIBSVM -m)"},
		{Name: "shrinking", Default: "true", Help: "use the shrinking heuristic (LIBSVM -h)"},
		{Name: "max_iter", Default: "0", Help: "iteration limit; 0 = max(10^7, 100n) as LIBSVM"},
	}
}

// Read returns the solver settings given in p, with range errors recorded
// in p (reported by p.Err).
func Read(p *detector.Params) smo.Settings {
	var s smo.Settings
	s.Tol = p.Float("tol", 1e-3)
	p.Check(s.Tol > 0, "tol", "must be > 0")
	s.CacheMB = p.Float("cache_mb", 200)
	p.Check(s.CacheMB > 0, "cache_mb", "must be > 0")
	s.NoShrinking = !p.Bool("shrinking", true)
	s.MaxIter = p.Int("max_iter", 0)
	p.Check(s.MaxIter >= 0, "max_iter", "must be ≥ 0")
	return s
}
