package expose

import (
	"math"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/scale"
)

// The scale stage centres dense rows, x' = (x − o)/s, but scales sparse
// ones without centring, x' = x/s, so that they stay sparse. A shift-
// invariant kernel does not see the difference; its random features do:
// cos(ωᵀx' + b) changes with the shift c = o/s, and the scale width rules
// (1/(d·Var) over all entries) count the spread of the column centres as
// variance. EXPoSE keeps sparse rows sparse and makes the model the one
// the dense rows give: the width comes from the variance of the centred
// rows, and the shift is folded into the phases,
//
//	cos(ωᵀ(x' − c) + b) = cos(ωᵀx' + (b − ωᵀc)),
//
// so features cost O(D) per non-zero, not O(D·d) per row. The centres are
// those of the stage's rule: the column means (standard) or minima
// (minmax) of the scaled rows the stage was fitted on. Rule robust
// centres on the medians, which a pass cannot give: its centres are taken
// as 0 (exact when every column is at least half zeros, its median then).

// centring is the centring the stage leaves undone on sparse rows.
type centring struct {
	c []float64 // column centres, in scaled units
	// v is the variance over all entries of the centred rows (what
	// kernel.ScaleGamma computes on dense rows), so that the scale rules
	// give γ = 1/(d·v) (1 when v = 0).
	v float64
}

// centringOf returns the centring of the sparse scaled rows rs under the
// stage rule, from two passes (column sums and minima; squared deviations
// from the column means), or nil when the stage centres nothing (rules
// none and robust).
func centringOf(rule string, rs kernel.Rows) (*centring, error) {
	if rule != scale.Standardize && rule != scale.MinMaxRule {
		return nil, nil
	}
	n, d := rs.N, rs.Cols
	sum, lo, cnt := make([]float64, d), make([]float64, d), make([]int, d)
	for j := range lo {
		lo[j] = math.Inf(1)
	}
	err := rs.Pass(func(X mat.Matrix) error {
		csr.Input(X).(*sparse.CSR).DoNonZero(func(_, j int, v float64) {
			sum[j] += v
			lo[j] = math.Min(lo[j], v)
			cnt[j]++
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	mean := sum
	for j := range mean {
		mean[j] /= float64(n)
		if cnt[j] < n { // an implicit zero
			lo[j] = math.Min(lo[j], 0)
		}
	}
	ss := make([]float64, d)
	err = rs.Pass(func(X mat.Matrix) error {
		csr.Input(X).(*sparse.CSR).DoNonZero(func(_, j int, v float64) {
			e := v - mean[j]
			ss[j] += e * e
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	c := mean
	if rule == scale.MinMaxRule {
		c = lo
	}
	// Over all entries of the centred rows, the variance is the mean of
	// the columns' variances plus the variance over columns of their
	// centred means (mean_j − c_j): 0 for the standard rule.
	var within, m1, m2 float64
	for j := range ss {
		ss[j] += float64(n-cnt[j]) * mean[j] * mean[j] // the implicit zeros
		within += ss[j] / float64(n)
		e := mean[j] - c[j]
		m1 += e
		m2 += e * e
	}
	m1 /= float64(d)
	v := within/float64(d) + math.Max(m2/float64(d)-m1*m1, 0)
	return &centring{c: c, v: v}, nil
}

// gamma returns the scale rules' γ on the centred rows, or 0 when the
// spec's width does not come from them (a γ given, or the median rule,
// which distances decide: they do not change with a shift).
func (ce *centring) gamma(spec kernel.Spec, n int) float64 {
	if spec.Gamma > 0 || (spec.Rule != kernel.ScaleRule && spec.Rule != kernel.ScaleScottRule) {
		return 0
	}
	g := 1.0
	if ce.v > 0 {
		g = 1 / (float64(len(ce.c)) * ce.v)
	}
	if spec.Rule == kernel.ScaleScottRule {
		g = kernel.ScaleScottGamma(g, n, len(ce.c))
	}
	return g
}

// fold moves the centring into the phases of the cosine map fm (not yet
// used): b_k ← b_k − ω_kᵀc.
func (ce *centring) fold(fm cosineMap) {
	W, b := fm.Frequencies()
	for k := range b {
		b[k] -= floats.Dot(W.RawRowView(k), ce.c)
	}
}
