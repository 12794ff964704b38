package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// GaussianMixture returns n seeded rows in d dimensions: n − k normal rows
// and k = round(anomalyFrac·n) anomalies, shuffled, with Y marking them.
//
// Normal rows come from 3 Gaussian clusters of equal weight, with centres
// drawn uniformly from [−5, 5]^d and identity covariance. Anomalies are
// uniform over the bounding box of the normal rows enlarged by 20% of its
// width on every side, so some of them fall inside the clusters (as with
// PyOD's generate_data). It panics if n < 1, d < 1, anomalyFrac is not in
// [0, 1) or src is nil.
func GaussianMixture(n, d int, anomalyFrac float64, src rand.Source) *Dataset {
	if n < 1 || d < 1 || !(anomalyFrac >= 0 && anomalyFrac < 1) || src == nil {
		panic(fmt.Sprintf("dataset: GaussianMixture(n=%d, d=%d, anomalyFrac=%v) out of range", n, d, anomalyFrac))
	}
	rng := rand.New(src)
	const clusters = 3
	centre := make([][]float64, clusters)
	for c := range centre {
		centre[c] = make([]float64, d)
		for j := range centre[c] {
			centre[c][j] = -5 + 10*rng.Float64()
		}
	}
	return synth(n, d, anomalyFrac, rng, func(row []float64) {
		c := centre[rng.IntN(clusters)]
		for j := range row {
			row[j] = c[j] + rng.NormFloat64()
		}
	})
}

// Banana returns n seeded 2-D rows: n − k normal rows on a banana-shaped
// curve and k = round(anomalyFrac·n) uniform anomalies, shuffled, with Y
// marking them.
//
// A normal row is the twisted Gaussian (x₁, x₂) = (z₁, z₂ + 0.25·z₁² − 1)
// with z₁ ~ N(0, 2²) and z₂ ~ N(0, 0.5²) — a parabola-shaped cloud. The
// anomalies are uniform over the bounding box of the normal rows enlarged by
// 20% of its width on every side. It panics if n < 1, anomalyFrac is not in
// [0, 1) or src is nil.
func Banana(n int, anomalyFrac float64, src rand.Source) *Dataset {
	if n < 1 || !(anomalyFrac >= 0 && anomalyFrac < 1) || src == nil {
		panic(fmt.Sprintf("dataset: Banana(n=%d, anomalyFrac=%v) out of range", n, anomalyFrac))
	}
	rng := rand.New(src)
	return synth(n, 2, anomalyFrac, rng, func(row []float64) {
		z1 := 2 * rng.NormFloat64()
		z2 := 0.5 * rng.NormFloat64()
		row[0] = z1
		row[1] = z2 + 0.25*z1*z1 - 1
	})
}

// synth draws the normal rows with normal, then uniform anomalies over the
// enlarged bounding box, then shuffles the rows.
func synth(n, d int, frac float64, rng *rand.Rand, normal func(row []float64)) *Dataset {
	k := int(math.Round(frac * float64(n)))
	if k >= n {
		k = n - 1
	}
	data := make([]float64, n*d)
	lo := make([]float64, d)
	hi := make([]float64, d)
	for j := range lo {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for i := 0; i < n-k; i++ {
		row := data[i*d : (i+1)*d]
		normal(row)
		for j, v := range row {
			lo[j], hi[j] = math.Min(lo[j], v), math.Max(hi[j], v)
		}
	}
	for j := range lo {
		w := hi[j] - lo[j]
		lo[j] -= 0.2 * w
		hi[j] += 0.2 * w
	}
	y := make([]int, n)
	for i := n - k; i < n; i++ {
		row := data[i*d : (i+1)*d]
		for j := range row {
			row[j] = lo[j] + (hi[j]-lo[j])*rng.Float64()
		}
		y[i] = 1
	}
	rng.Shuffle(n, func(a, b int) {
		y[a], y[b] = y[b], y[a]
		ra, rb := data[a*d:(a+1)*d], data[b*d:(b+1)*d]
		for j := range ra {
			ra[j], rb[j] = rb[j], ra[j]
		}
	})
	return &Dataset{X: mat.NewDense(n, d, data), Y: y}
}
