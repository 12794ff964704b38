// Package smoparams reads the settings of the smo solver from a method's
// key=value parameters (what --set gives), for every detector built on the
// solver (ocsvm, svdd): one list of keys, one set of defaults and range
// checks, so the methods cannot drift apart.
//
// Keys: tol (stopping tolerance, default 1e-3, LIBSVM's -e), cache_mb
// (kernel-column cache budget, default 200, -m), shrinking (default true,
// -h) and max_iter (0 = max(10⁷, 100·n), as LIBSVM).
package smoparams
