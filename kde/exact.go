package kde

import (
	"context"
	"math"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// scoreExact sets dst[i] = −log p̂(x_i) summing over every training row.
// Squared distances come from one matrix product per block of 64 query rows,
// ‖q − x‖² = ‖q‖² + ‖x‖² − 2qᵀx on mean-centred data (clamped at 0), and
// the kernel sum is a log-sum-exp so a far point keeps a finite score under
// the Gaussian and exponential kernels.
func (k *KDE) scoreExact(ctx context.Context, dst []float64, X mat.Matrix, centred bool) error {
	m, _ := X.Dims()
	n, d := k.n, k.d
	br := exactBlockRows(n)
	nb := (m + br - 1) / br
	kern, h := k.cfg.Kernel, k.h
	// The training rows transposed (d × n): the product below is then
	// fastmath.MulNN's register-blocked q·Xᵀ (each inner product summed in
	// registers, stored once) rather than one dot product of length d per
	// kernel term, which for tabular d (under ~30) is mostly call overhead.
	xt := mat.NewDense(d, n, nil)
	xt.Copy(k.xc.T())
	xtr := xt.RawMatrix()
	done := 0
	var progMu chan struct{}
	if k.cfg.Progress != nil {
		progMu = make(chan struct{}, 1)
	}
	return parallel.ForBlocksContext(ctx, nb, func() func(int) {
		q := make([]float64, br*d)
		g := make([]float64, br*n)
		lk := make([]float64, n)
		qn := make([]float64, br)
		return func(b int) {
			lo := b * br
			hi := min(lo+br, m)
			rows := hi - lo
			for i := 0; i < rows; i++ {
				row := q[i*d : (i+1)*d]
				k.queryRow(row, X, lo+i, centred)
				qn[i] = fastmath.SumSquares(row)
			}
			fastmath.MulNN(g, n, q, d, xtr.Data, xtr.Stride, rows, n, d)
			for i := 0; i < rows; i++ {
				if ctx.Err() != nil {
					return // ForBlocksContext reports ctx.Err()
				}
				gi := g[i*n : (i+1)*n]
				var ls float64
				if kern == Gaussian {
					ls = gaussianLogSum(gi, qn[i], k.sqn, h)
				} else {
					for j, v := range gi {
						r2 := fastmath.SqDist(qn[i], k.sqn[j], v)
						lk[j] = kern.logProfile(math.Sqrt(r2), r2, h)
					}
					ls = logSumExp(lk)
				}
				dst[lo+i] = -(ls + k.logNorm)
			}
			if progMu != nil {
				progMu <- struct{}{}
				done += rows
				k.cfg.Progress("score", done, m)
				<-progMu
			}
		}
	})
}

// gaussianLogSum returns log Σ_j exp(−r_j²/(2h²)) with r_j² = qn + sqn_j −
// 2g_j (fastmath.SqDist), the largest term factored out; −Inf when every
// r_j² is +Inf.
func gaussianLogSum(g []float64, qn float64, sqn []float64, h float64) float64 {
	minR2 := math.Inf(1)
	for j, v := range g {
		r2 := fastmath.SqDist(qn, sqn[j], v)
		g[j] = r2
		if r2 < minR2 {
			minR2 = r2
		}
	}
	if math.IsInf(minR2, 1) {
		// Every training row is beyond float64's range of squared
		// distances (SqDist's +Inf): the density underflows to 0, and
		// r² − min below would be Inf − Inf.
		return math.Inf(-1)
	}
	// The terms e^{−(r² − min)/(2h²)} scaled, exponentiated and summed in
	// one pass (fastmath.ExpSum) while −1/(2h²) is a finite number.
	// Otherwise (r²/h)/h rather than r²/h²: h² underflows to 0 for h below
	// 1e-154 (and overflows above 1e154), which would make the exponents
	// 0·∞; two multiplications by 1/h unless 1/h itself overflows.
	if sc := -0.5 / h / h; !math.IsInf(sc, 0) && sc != 0 {
		return -0.5*(minR2/h)/h + math.Log(fastmath.ExpSum(g, minR2, sc))
	}
	if ih := 1 / h; !math.IsInf(ih, 0) {
		ih2 := -0.5 * ih
		for j, r2 := range g {
			g[j] = ((r2 - minR2) * ih2) * ih
		}
	} else {
		for j, r2 := range g {
			g[j] = -0.5 * ((r2 - minR2) / h) / h
		}
	}
	fastmath.Exp(g, g) // math.Exp to two ulps, four at a time
	var s float64
	for _, v := range g {
		s += v
	}
	return -0.5*(minR2/h)/h + math.Log(s)
}

// exactBlockRows is the number of query rows one work item of the exact
// scorer covers: 64, or fewer for large training sets so that one item —
// a gemm against all n training rows, which cannot stop midway — stays
// near 2²⁰ kernel terms, and a cancelled ctx is seen within milliseconds.
func exactBlockRows(n int) int {
	return max(4, min(blockRows, (1<<20)/max(n, 1)))
}
