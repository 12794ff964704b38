package oneclass

import (
	"math"
	"slices"
	"sort"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
)

// FitKernel resolves the kernel of spec on the training rows X, as
// spec.Fit does, with one difference for rows the scale stage kept sparse
// (centred = true: X is a *sparse.CSR that the standard stage divided by
// each column's deviation without centring it, where it centres dense
// rows). The rbf and laplacian kernels do not see a column's shift, but
// the scale and scale_scott rules do: they take the variance of all the
// entries together, which for uncentred columns adds the spread of the
// column means. For such rows the rule takes the entries' variance about
// their column means, which is what it finds on the centred dense rows,
// so that a sparse matrix and its dense copy give one width and one model
// (to rounding). Other kernels see the shift themselves, and the median
// rule does not depend on it.
func FitKernel(spec kernel.Spec, X mat.Matrix, centred bool) (kernel.Kernel, float64, error) {
	sp, ok := X.(*sparse.CSR)
	rule := spec.Rule
	if rule == "" {
		rule = kernel.ScaleRule // as Spec.Width
	}
	shiftFree := spec.Kind == "" || spec.Kind == "rbf" || spec.Kind == "laplacian"
	if !centred || !ok || spec.Gamma > 0 || !shiftFree || (rule != kernel.ScaleRule && rule != kernel.ScaleScottRule) {
		return spec.Fit(X, nil)
	}
	if err := kernel.CheckRange(X); err != nil {
		return nil, 0, err
	}
	g := centredScaleGamma(sp)
	if rule == kernel.ScaleScottRule {
		n, d := sp.Dims()
		g = kernel.ScaleScottGamma(g, n, d)
	}
	if !(g > 0) || math.IsInf(g, 0) {
		return nil, 0, &kernel.WidthError{Rule: rule, Gamma: g}
	}
	k, err := spec.New(g)
	return k, g, err
}

// centredScaleGamma is kernel.ScaleGamma of the rows of X with each
// column centred on its mean, read through the non-zeros: γ = 1/(d·v)
// with v = Σ_j Σ_i (x_ij − m_j)²/(nd), 1 when v = 0. The entries are
// divided by a power of two near their largest magnitude first, so that
// the squares stay finite near the ends of the float64 range. The column
// sums are kept for the touched columns only (a LIBSVM file of 10⁷
// hashed columns holds far fewer non-zeros).
func centredScaleGamma(X *sparse.CSR) float64 {
	n, d := X.Dims()
	var big float64
	X.DoNonZero(func(_, _ int, v float64) { big = math.Max(big, math.Abs(v)) })
	inv, unit := 1.0, 1.0
	if big > 0 && !math.IsInf(big, 0) {
		_, e := math.Frexp(big)
		unit = math.Ldexp(1, e-1)
		inv = 1 / unit
	}
	// pos maps a column to its slot among the touched columns.
	raw := X.RawMatrix()
	nnz := raw.Indptr[n] - raw.Indptr[0]
	pos := func(j int) int { return j }
	slots := d
	if d > nnz {
		cols := slices.Clone(raw.Ind[raw.Indptr[0]:raw.Indptr[n]])
		slices.Sort(cols)
		cols = slices.Compact(cols)
		pos = func(j int) int { return sort.SearchInts(cols, j) }
		slots = len(cols)
	}
	sum := make([]float64, slots)
	count := make([]int, slots)
	for i := range n {
		ind, val := csr.Row(X, i)
		for k, j := range ind {
			p := pos(j)
			sum[p] += val[k] * inv
			count[p]++
		}
	}
	for p := range sum {
		sum[p] /= float64(n) // the column mean, in units of unit
	}
	var ss float64
	for i := range n {
		ind, val := csr.Row(X, i)
		for k, j := range ind {
			r := val[k]*inv - sum[pos(j)]
			ss += r * r
		}
	}
	for p, m := range sum {
		ss += float64(n-count[p]) * m * m // the implicit zeros
	}
	v := ss / (float64(n) * float64(d))
	if v == 0 {
		return 1
	}
	return 1 / (float64(d) * v) / unit / unit
}
