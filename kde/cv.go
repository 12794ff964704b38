package kde

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
)

// defaultGrid returns 21 bandwidths h_S·10^(−1.5 + 0.1k), k = 0..20, around
// Scott's rule of thumb h_S = σ̄·n^(−1/(d+4)), σ̄ the mean column standard
// deviation of the (centred) training rows.
func defaultGrid(xc *mat.Dense) []float64 {
	n, d := xc.Dims()
	ss := make([]float64, d) // Σ_i x_ij², summed down each column in order
	for i := 0; i < n; i++ {
		for j, v := range xc.RawRowView(i) {
			ss[j] += v * v
		}
	}
	var sigma float64
	for _, s := range ss {
		sigma += math.Sqrt(s / float64(n))
	}
	sigma /= float64(d)
	if sigma == 0 {
		sigma = 1
	}
	hs := sigma * math.Pow(float64(n), -1/float64(d+4))
	g := make([]float64, 21)
	for k := range g {
		g[k] = hs * math.Pow(10, -1.5+0.1*float64(k))
	}
	return g
}

// cvRows is the most held-out rows of cross-validation (Config.CVRows).
func (k *KDE) cvRows() int {
	if k.cfg.CVRows == 0 {
		return 1000
	}
	return k.cfg.CVRows
}

// crossValidate returns the bandwidth of the grid with the largest mean
// leave-one-out log-likelihood (1/m) Σ_i log p̂_(−i)(x_i) over m evenly
// spaced rows i, where p̂_(−i) leaves row i itself out of its own sum (rows
// equal to x_i stay in). A bandwidth for which some held-out row has zero
// density (finite-support kernels) scores −Inf. Ties go to the larger
// bandwidth. xc holds the centred training rows and sqn their squared
// norms. The context is checked before every bandwidth of every held-out
// row; progress is "cv", in held-out rows.
func (k *KDE) crossValidate(ctx context.Context, f *method.Fitting, xc *mat.Dense, sqn []float64) (float64, error) {
	n, d := xc.Dims()
	if n < 2 {
		return 0, fmt.Errorf("kde: bandwidth cross-validation needs at least 2 rows, got %d", n)
	}
	grid := k.cfg.CVGrid
	if len(grid) == 0 {
		grid = defaultGrid(xc)
	}
	m := min(k.cvRows(), n)
	held := method.EvenRows(n, m)
	kern := k.cfg.Kernel
	ng := len(grid)
	br := exactBlockRows(n, d, m)
	nb := (m + br - 1) / br
	partial := make([][]float64, nb) // per block: Σ over its rows of log-lik per grid value
	f.Report("cv", 0, m)
	err := forBlocks(ctx, nb, br, m, func() func(int) {
		cb := newCrossBlock(br, n, d)
		r := make([]float64, n-1)
		lk := make([]float64, n-1)
		return func(b int) {
			lo := b * br
			hi := min(lo+br, m)
			for i := lo; i < hi; i++ {
				copy(cb.row(i-lo), xc.RawRowView(held[i]))
			}
			if !cb.sqDists(ctx, xc, sqn, hi-lo) {
				return // forBlocks reports ctx.Err()
			}
			acc := make([]float64, ng)
			for i := lo; i < hi; i++ {
				self := held[i]
				r = r[:0]
				for j, r2 := range cb.dists(i - lo) {
					if j != self {
						r = append(r, r2)
					}
				}
				for gi, h := range grid {
					if ctx.Err() != nil {
						return // forBlocks reports ctx.Err()
					}
					for j, r2 := range r {
						lk[j] = kern.logProfile(math.Sqrt(r2), r2, h)
					}
					acc[gi] += logSumExp(lk) + kern.logNorm(h, d) - math.Log(float64(n-1))
				}
			}
			partial[b] = acc
		}
	}, func(done int) { f.Report("cv", done, m) })
	if err != nil {
		return 0, err
	}
	best, bestH := math.Inf(-1), grid[len(grid)-1]
	for gi, h := range grid {
		var s float64
		for _, p := range partial {
			s += p[gi]
		}
		if s > best || (s == best && h > bestH) {
			best, bestH = s, h
		}
	}
	return bestH, nil
}
