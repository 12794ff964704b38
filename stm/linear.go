package stm

import (
	"context"
	"math"
	"sort"

	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// pairsPerCheck is the number of pair updates linearOC makes between two
// looks at the context within a pass: each costs five products of
// length D (1,024 pairs of D = 1,000 features: about 2 ms).
const pairsPerCheck = 1024

// rows is an n × D matrix held as slabs of slabRows rows, each its own
// allocation: the features of the linear machine. One allocation of n × D
// values is zeroed by the runtime at once, with no look at the context:
// 164 MB (20,000 rows of D = 1,024) took up to a second under load, and
// 10⁶ rows would take 8 GB; slabs are made with ctx checked between them.
type rows struct {
	n, D  int
	slabs []*mat.Dense
}

// slabRows is the number of rows of a slab, a multiple of 4 (see mulVec):
// 1,024 rows of D = 1,000 features are 8 MB, under a millisecond of work
// for any pass over them.
const slabRows = 1024

// newRows returns n × D zeros in slabs.
func newRows(ctx context.Context, n, D int) (*rows, error) {
	z := &rows{n: n, D: D}
	for lo := 0; lo < n; lo += slabRows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		z.slabs = append(z.slabs, mat.NewDense(min(slabRows, n-lo), D, nil))
	}
	return z, nil
}

// rowsOfDense returns Z as slabs (views of it, no copy).
func rowsOfDense(Z *mat.Dense) *rows {
	n, D := Z.Dims()
	z := &rows{n: n, D: D}
	for lo := 0; lo < n; lo += slabRows {
		z.slabs = append(z.slabs, Z.Slice(lo, min(n, lo+slabRows), 0, D).(*mat.Dense))
	}
	return z
}

// row returns row i.
func (z *rows) row(i int) []float64 { return z.slabs[i/slabRows].RawRowView(i % slabRows) }

// mulVec sets dst = α·Z·w, a slab at a time on every core, ctx checked
// between slabs. Each value is gonum's Gemv of its row, and Gemv takes
// rows four at a time: slabs start at multiples of four, so they group
// the rows as one Gemv of all of them would, and the result does not
// depend on the slabs.
func (z *rows) mulVec(ctx context.Context, dst, w []float64, alpha float64) error {
	return parallel.ForBlocksContext(ctx, len(z.slabs), func() func(int) {
		return func(b int) {
			s := z.slabs[b].RawMatrix()
			lo := b * slabRows
			blas64.Gemv(blas.NoTrans, alpha, s, blas64.Vector{N: z.D, Inc: 1, Data: w}, 0, blas64.Vector{N: s.Rows, Inc: 1, Data: dst[lo : lo+s.Rows]})
		}
	})
}

// linearOC is the linear ν one-class machine on explicit feature vectors
// z_i (the rows of Z):
//
//	min_{w,ρ,ξ} ½‖w‖² + 1/(νn) Σ ξ_i − ρ   s.t. ⟨w, z_i⟩ ≥ ρ − ξ_i, ξ_i ≥ 0,
//
// solved through its dual min ½‖Σ α_i z_i‖² s.t. Σα = νn, 0 ≤ α ≤ 1 (LIBSVM
// scaling) by two-variable coordinate descent that keeps the primal vector
// w = Σ α_i z_i explicit (Chou, Lin et al., "Dual coordinate-descent
// methods for linear one-class SVM and SVDD", SDM 2020): each outer pass
// computes all gradients G = Zw (a Gemv on every core, O(nD)), pairs the most violating
// variables (smallest G among α < 1 with largest G among α > 0) and updates
// each pair exactly, refreshing its two gradients and w in O(D). Cost per
// pass O(n·D): linear in the number of samples, no kernel matrix.
//
// It returns w and ρ of the Σα = 1 form (divided by νn), so the score of a
// sample is ρ − ⟨w, z⟩, and the number of passes.
func linearOC(ctx context.Context, Z *rows, nu, tol float64, maxPass int, progress func(stage string, done, total int)) (w []float64, rho float64, passes int, err error) {
	n, D := Z.n, Z.D
	row := Z.row
	// With νn ≤ 1 the bound of the Σα = 1 form, 1/(νn), is at least 1 and
	// never binds, so every such ν has the optimum of νn = 1: solving with
	// s = 1 gives it exactly, where a subnormal νn (ν = 1e-320) made w
	// infinite below (1/s) and the scores NaN.
	s := max(nu*float64(n), 1)
	alpha := make([]float64, n)
	// LIBSVM's start: the first ⌊νn⌋ at the bound, the next one fractional.
	rest := s
	for i := 0; i < n && rest > 0; i++ {
		alpha[i] = min(1, rest)
		rest -= alpha[i]
	}
	// w = Σ α_i z_i and the rows' squared norms, a block of rows at a
	// time with ctx checked between blocks (10⁶ rows of D = 1,000 take
	// a second).
	w = make([]float64, D)
	qd := make([]float64, n)
	for lo := 0; lo < n; lo += slabRows {
		if err := ctx.Err(); err != nil {
			return nil, 0, 0, err
		}
		for i := lo; i < min(n, lo+slabRows); i++ {
			if a := alpha[i]; a > 0 {
				floats.AddScaled(w, a, row(i))
			}
			qd[i] = floats.Dot(row(i), row(i))
		}
	}
	g := make([]float64, n)
	up := make([]int, 0, n)
	low := make([]int, 0, n)
	gradients := func() error { return Z.mulVec(ctx, g, w, 1) }
	if tol <= 0 {
		tol = 1e-3
	}
	if maxPass <= 0 {
		maxPass = 1000
	}
	for passes = 0; passes < maxPass; passes++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, passes, err
		}
		if progress != nil {
			progress("linear", passes, maxPass)
		}
		if err := gradients(); err != nil {
			return nil, 0, passes, err
		}
		up, low = up[:0], low[:0]
		for i, a := range alpha {
			if a < 1 {
				up = append(up, i)
			}
			if a > 0 {
				low = append(low, i)
			}
		}
		sort.Slice(up, func(a, b int) bool { return g[up[a]] < g[up[b]] })
		if err := ctx.Err(); err != nil { // each sort of 10⁶ rows takes 0.2 s
			return nil, 0, passes, err
		}
		sort.Slice(low, func(a, b int) bool { return g[low[a]] > g[low[b]] })
		if len(up) == 0 || len(low) == 0 || g[low[0]]-g[up[0]] < tol {
			break
		}
		for k := 0; k < len(up) && k < len(low); k++ {
			if k%pairsPerCheck == pairsPerCheck-1 {
				if err := ctx.Err(); err != nil {
					return nil, 0, passes, err
				}
			}
			i, j := up[k], low[k]
			if i == j {
				continue
			}
			gi := floats.Dot(w, row(i))
			gj := floats.Dot(w, row(j))
			if gj-gi < tol {
				if g[low[k]]-g[up[k]] < tol {
					break
				}
				continue
			}
			eta := qd[i] + qd[j] - 2*floats.Dot(row(i), row(j))
			if eta < 1e-12 {
				eta = 1e-12
			}
			d := min((gj-gi)/eta, 1-alpha[i], alpha[j])
			if d <= 0 {
				continue
			}
			alpha[i] += d
			alpha[j] -= d
			floats.AddScaled(w, d, row(i))
			floats.AddScaled(w, -d, row(j))
		}
	}
	if progress != nil {
		progress("linear", maxPass, maxPass) // converged, or at the limit
	}
	if err := gradients(); err != nil {
		return nil, 0, passes, err
	}
	// ρ: the mean gradient over free variables; with none, the middle of
	// the interval the bounded ones allow.
	sum, nf := 0.0, 0
	ub, lb := math.Inf(1), math.Inf(-1)
	for i, a := range alpha {
		switch {
		case a > 0 && a < 1:
			sum += g[i]
			nf++
		case a == 0:
			ub = min(ub, g[i])
		default:
			lb = max(lb, g[i])
		}
	}
	switch {
	case nf > 0:
		rho = sum / float64(nf)
	case math.IsInf(ub, 1):
		rho = lb
	case math.IsInf(lb, -1):
		rho = ub
	default:
		rho = (ub + lb) / 2
	}
	floats.Scale(1/s, w)
	return w, rho / s, passes, nil
}
