package kde

import (
	"context"
	"fmt"
	"math"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// defaultGrid returns 21 bandwidths h_S·10^(−1.5 + 0.1k), k = 0..20, around
// Scott's rule of thumb h_S = σ̄·n^(−1/(d+4)), σ̄ the mean column standard
// deviation of the (centred) training rows.
func defaultGrid(xc *mat.Dense) []float64 {
	n, d := xc.Dims()
	var sigma float64
	for j := 0; j < d; j++ {
		var s float64
		for i := 0; i < n; i++ {
			v := xc.At(i, j)
			s += v * v
		}
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

// crossValidate returns the bandwidth of the grid with the largest mean
// leave-one-out log-likelihood (1/m) Σ_i log p̂_(−i)(x_i) over m evenly
// spaced rows i, where p̂_(−i) leaves row i itself out of its own sum (rows
// equal to x_i stay in). A bandwidth for which some held-out row has zero
// density (finite-support kernels) scores −Inf. Ties go to the larger
// bandwidth.
func (k *KDE) crossValidate(ctx context.Context, xc *mat.Dense, sqn []float64) (float64, error) {
	n, d := xc.Dims()
	if n < 2 {
		return 0, fmt.Errorf("kde: bandwidth cross-validation needs at least 2 rows, got %d", n)
	}
	grid := k.cfg.CVGrid
	if len(grid) == 0 {
		grid = defaultGrid(xc)
	}
	m := k.cfg.CVRows
	if m == 0 {
		m = 1000
	}
	m = min(m, n)
	held := evenRows(n, m)
	kern := k.cfg.Kernel
	ng := len(grid)
	xraw := xc.RawMatrix()
	nb := (m + blockRows - 1) / blockRows
	partial := make([][]float64, nb) // per block: Σ over its rows of log-lik per grid value
	err := parallel.ForBlocksContext(ctx, nb, func() func(int) {
		q := make([]float64, blockRows*d)
		g := make([]float64, blockRows*n)
		r := make([]float64, n-1)
		lk := make([]float64, n-1)
		return func(b int) {
			lo := b * blockRows
			hi := min(lo+blockRows, m)
			rows := hi - lo
			for i := 0; i < rows; i++ {
				copy(q[i*d:(i+1)*d], xc.RawRowView(held[lo+i]))
			}
			blas64.Gemm(blas.NoTrans, blas.Trans, 1,
				blas64.General{Rows: rows, Cols: d, Stride: d, Data: q},
				blas64.General{Rows: n, Cols: d, Stride: xraw.Stride, Data: xraw.Data},
				0, blas64.General{Rows: rows, Cols: n, Stride: n, Data: g})
			acc := make([]float64, ng)
			for i := 0; i < rows; i++ {
				self := held[lo+i]
				r = r[:0]
				for j, v := range g[i*n : (i+1)*n] {
					if j == self {
						continue
					}
					r2 := fastmath.SqDist(sqn[self], sqn[j], v)
					r = append(r, r2)
				}
				for gi, h := range grid {
					for j, r2 := range r {
						lk[j] = kern.logProfile(math.Sqrt(r2), r2, h)
					}
					acc[gi] += logSumExp(lk) + kern.logNorm(h, d) - math.Log(float64(n-1))
				}
			}
			partial[b] = acc
		}
	})
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
