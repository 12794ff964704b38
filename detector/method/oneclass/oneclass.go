package oneclass

import (
	"context"
	"fmt"
	"math"
	"runtime"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/smo"
)

// Stats describes a solve, in the Σ y_i α_i = 1 form.
type Stats struct {
	// Iterations and Status come from the solver; Status is
	// smo.IterationLimit when MaxIter stopped it.
	Iterations int
	Status     smo.Status
	// Objective is the dual objective at the solution.
	Objective float64
	// SV counts α_i > 0, BoundedSV those at their upper bound.
	SV, BoundedSV int
	// CachePeakBytes is the largest amount of kernel values the solver's
	// cache held; CacheBudgetBytes its bound.
	CachePeakBytes, CacheBudgetBytes int64
}

// Solution is a solved dual in the Σ y_i α_i = 1 form.
type Solution struct {
	// Alpha holds α_i ≥ 0; Rho is ρ; Grad is the gradient Qα + p/s at α.
	Alpha []float64
	Rho   float64
	Grad  []float64
	Stats Stats
}

// Solve solves prob, stated in LIBSVM's scaling: Σ y_i α'_i = prob.Delta =
// s with bounds of order 1, which keeps the solver's tolerance meaning what
// it means to LIBSVM. It returns α = α'/s, ρ/s and the gradient divided by
// s. Progress goes to set.Progress as the solver reports it: stage
// "gradient" (columns or row ranges of the initial gradient) and stage
// "smo" (iterations of the iteration limit, ending at the limit when the
// solver stops, converged or not).
func Solve(ctx context.Context, prob smo.Problem, set smo.Settings) (*Solution, error) {
	s := prob.Delta
	res, err := smo.Solve(ctx, prob, set)
	if err != nil {
		return nil, err
	}
	sol := &Solution{Alpha: make([]float64, len(res.Alpha)), Grad: make([]float64, len(res.Alpha)), Rho: res.Rho / s}
	sol.Stats = Stats{Iterations: res.Iterations, Status: res.Status, Objective: res.Objective / (s * s),
		CachePeakBytes: res.CachePeakBytes, CacheBudgetBytes: res.CacheBudgetBytes}
	for i, a := range res.Alpha {
		if a > 0 {
			sol.Stats.SV++
			if a >= prob.C[i] {
				sol.Stats.BoundedSV++
			}
		}
		sol.Alpha[i] = a / s
		sol.Grad[i] = res.Gradient[i] / s
	}
	return sol, nil
}

// Nu solves Schölkopf's ν one-class SVM dual min ½αᵀQα subject to
// 0 ≤ α_i ≤ 1/(νn) and Σα = 1 over the n × n kernel matrix q (solved as
// LIBSVM does, with bounds 1 and Σα' = νn), and returns the solution and
// the training scores ρ − (Qα)_i.
func Nu(ctx context.Context, q smo.Matrix, nu float64, set smo.Settings) (*Solution, []float64, error) {
	n := q.Len()
	cs := make([]float64, n)
	for i := range cs {
		cs[i] = 1
	}
	sol, err := Solve(ctx, smo.Problem{Q: q, C: cs, Delta: nu * float64(n)}, set)
	if err != nil {
		return nil, nil, err
	}
	train := make([]float64, n)
	for i, g := range sol.Grad {
		train[i] = sol.Rho - g
	}
	return sol, train, nil
}

// State is the saved form of a kernel expansion f(x) = Σ_i Coef_i k(SV_i, x):
// the support vectors (row-major, len(Coef) × D), their coefficients and
// the kernel width γ the expansion was fitted with.
type State struct {
	D     int
	SV    []float64
	Coef  []float64
	Gamma float64
	// SVInd and SVPtr are set when the support vectors are sparse (SV
	// then holds their non-zero values; see smo.Expansion).
	SVInd []int
	SVPtr []int
}

// Save returns the saved form of e fitted with width gamma.
func Save(e *smo.Expansion, gamma float64) State {
	return State{D: e.D, SV: e.SV, Coef: e.Coef, Gamma: gamma, SVInd: e.SVInd, SVPtr: e.SVPtr}
}

// checkSizes reports whether the support vectors of s are consistent:
// len(Coef) × D dense values, or compressed rows with ascending column
// indices in [0, D). The sizes come from a file: they are compared by
// division, never multiplied (D = 2⁶² with 4 coefficients and no values
// passed len(SV) == len(Coef)·D, as 4·2⁶² wraps to 0, and panicked later
// in scoring).
func checkSizes(s State) bool {
	if s.D <= 0 || len(s.Coef) == 0 {
		return false
	}
	if s.SVPtr == nil {
		return s.SVInd == nil && len(s.SV)%s.D == 0 && len(s.SV)/s.D == len(s.Coef)
	}
	if len(s.SVPtr) != len(s.Coef)+1 || s.SVPtr[0] != 0 || s.SVPtr[len(s.Coef)] != len(s.SV) || len(s.SVInd) != len(s.SV) {
		return false
	}
	for i := range s.Coef {
		lo, hi := s.SVPtr[i], s.SVPtr[i+1]
		if lo > hi || hi > len(s.SV) {
			return false
		}
		for t := lo; t < hi; t++ {
			if j := s.SVInd[t]; j < 0 || j >= s.D || (t > lo && j <= s.SVInd[t-1]) {
				return false
			}
		}
	}
	return true
}

// Restore validates a saved expansion (sizes, finite values, non-zero
// coefficients, a positive width where the kernel uses one) and rebuilds
// it over the kernel spec's kernel at the saved width.
func Restore(s State, spec kernel.Spec) (*smo.Expansion, error) {
	if !checkSizes(s) {
		return nil, fmt.Errorf("expansion sizes are inconsistent")
	}
	for _, v := range s.Coef {
		if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("expansion coefficient out of range")
		}
	}
	if !method.Finite(s.SV) {
		return nil, fmt.Errorf("support vector not finite")
	}
	var k kernel.Kernel = kernel.Linear{}
	if spec.Kind != "linear" {
		var err error
		if k, err = spec.New(s.Gamma); err != nil {
			return nil, err
		}
	}
	e := &smo.Expansion{Kernel: k, SV: s.SV, SVInd: s.SVInd, SVPtr: s.SVPtr, Coef: s.Coef, D: s.D}
	e.Init()
	return e, nil
}

// Memory estimates the peak bytes of a one-class fit or score on data of
// size s, beyond the input itself. scaled says the scale stage makes the
// fit a scaled copy of the rows (Fitting.Matrix: a rule other than none;
// a sparse matrix stays sparse, and its copy is its non-zeros).
//
// A fit holds, while the solver runs: that copy, the kernel matrix's own
// copy of the rows (their non-zeros when sparse) and, for dense rows, the
// rows transposed (the RBF columns' products), the column cache (bounded
// by cacheMB and by the whole n × n matrix in float32), and per row the
// solver's vectors, the initial gradient's per-worker sums and a tile of
// 16 rows of kernel values per worker (for sparse rows, a row scattered
// per worker). Once it returns: the scaled copy,
// the support vectors kept (at most every row) and saving them
// (method.SaveFactor). The estimate is the larger of the two.
//
// Score against nSV support vectors: what smo's Expansion.Eval allocates
// (smo.EvalBytes).
func Memory(op method.Op, s method.Size, cacheMB float64, nSV int, scaled bool) float64 {
	if op == method.ScoreOp {
		return float64(smo.EvalBytes(s.Rows, s.Cols, nSV, s.Sparse))
	}
	n := float64(s.Rows)
	rows := s.Bytes()
	workers := float64(runtime.GOMAXPROCS(0))
	cp := 0.0
	if scaled {
		cp = rows
	}
	store := rows
	if !s.Sparse {
		store = 2 * rows // and transposed
	}
	cache := min(cacheMB*(1<<20), 4*n*n)
	// smo: α, G, Ḡ, p, C, Q_ii (6), the result's α and G (2), the
	// solution's (2), the labels, statuses and index lists (about 2.5),
	// the norms and diagonal of the kernel matrix (2), the bounds (1):
	// 15.5 per row; the initial gradient's sums (2 per worker) and tile
	// (16 per worker).
	solve := cp + store + cache + 8*n*(15.5+18*workers)
	if s.Sparse {
		// A scattered row per worker for rows of at most 2¹⁸ columns
		// (smo's kernel columns of sparse RBF rows).
		solve += 8 * workers * min(float64(s.Cols), 1<<18)
	}
	after := cp + rows + method.SaveFactor*rows + 8*4*n
	return max(solve, after)
}
