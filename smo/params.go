package smo

import "github.com/kernelad/anomaly/param"

// Bind declares the solver's settings as parameters of a method built on
// the solver: tol (LIBSVM's -e), cache_mb (-m), shrinking (-h) and
// max_iter. Every method that solves a dual through this package binds
// them, so they cannot drift apart.
func (s *Settings) Bind(ps *param.Set) {
	ps.Float(&s.Tol, "tol", 1e-3, param.Above(0), "solver tolerance on the KKT violation (LIBSVM -e)")
	ps.Float(&s.CacheMB, "cache_mb", 200, param.Above(0), "kernel column cache budget in MB (LIBSVM -m)")
	ps.SwitchOff(&s.NoShrinking, "shrinking", "use the shrinking heuristic (LIBSVM -h)")
	ps.Int(&s.MaxIter, "max_iter", 0, param.AtLeast(0), "iteration limit; 0 = max(10^7, 100n) as LIBSVM")
}
