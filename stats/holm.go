package stats

import (
	"fmt"
	"math"
)

// Holm adjusts a family of p-values for multiple comparisons with Holm's
// step-down method (Holm 1979), as statsmodels' multipletests(p,
// method='holm') does: with the m p-values sorted increasingly,
// p_(1) ≤ … ≤ p_(m),
//
//	p̃_(i) = min(1, max_{j ≤ i} (m − j + 1) p_(j)),
//
// and rejecting every hypothesis with p̃ ≤ α controls the family-wise error
// rate at α. Equal p-values get equal adjusted values whatever their order.
//
// NaN entries (tests that could not be run) are not part of the family: they
// stay NaN and m counts only the others.
//
// dst receives the adjusted p-values in the order of p and is returned; if
// dst is nil a new slice is allocated, otherwise its length must equal
// len(p). Holm panics if a p-value is outside [0, 1].
func Holm(dst, p []float64) []float64 {
	if dst == nil {
		dst = make([]float64, len(p))
	} else if len(dst) != len(p) {
		panic(fmt.Sprintf("stats: destination length %d, want %d", len(dst), len(p)))
	}
	var idx []int
	for i, v := range p {
		if math.IsNaN(v) {
			continue
		}
		if v < 0 || v > 1 {
			panic(fmt.Sprintf("stats: p-value %v is not in [0, 1]", v))
		}
		idx = append(idx, i)
	}
	sortByValue(idx, p)
	adj := make([]float64, len(p))
	for i := range adj {
		adj[i] = math.NaN()
	}
	m := len(idx)
	run := 0.0
	for j, i := range idx {
		run = math.Max(run, float64(m-j)*p[i])
		adj[i] = math.Min(1, run)
	}
	copy(dst, adj)
	return dst
}
