package kde

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestSelectNth checks the quickselect used to split tree nodes against a
// sort, on keys with many duplicates and on distinct keys.
func TestSelectNth(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 200; trial++ {
		n := 1 + rng.IntN(300)
		col := make([]float64, n)
		for i := range col {
			if trial%2 == 0 {
				col[i] = float64(rng.IntN(4)) // heavy duplicates
			} else {
				col[i] = rng.NormFloat64()
			}
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		k := rng.IntN(n)
		selectNth(idx, k, col, 1)
		sorted := append([]float64(nil), col...)
		sort.Float64s(sorted)
		if col[idx[k]] != sorted[k] {
			t.Fatalf("trial %d: element %d is %v, want %v", trial, k, col[idx[k]], sorted[k])
		}
		for i := 0; i < k; i++ {
			if col[idx[i]] > sorted[k] {
				t.Fatalf("trial %d: %v before position %d exceeds %v", trial, col[idx[i]], k, sorted[k])
			}
		}
		for i := k + 1; i < n; i++ {
			if col[idx[i]] < sorted[k] {
				t.Fatalf("trial %d: %v after position %d is below %v", trial, col[idx[i]], k, sorted[k])
			}
		}
	}
}
