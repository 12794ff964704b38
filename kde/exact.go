package kde

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/fastmath"
)

// scoreExact sets dst[i] = −log p̂ of query row i summing over every
// training row. Squared distances come from one matrix product per block
// of query rows, ‖q − x‖² = ‖q‖² + ‖x‖² − 2qᵀx on mean-centred data
// (clamped at 0; crossBlock), and the kernel sum is a log-sum-exp so a
// far point keeps a finite score under the Gaussian and exponential
// kernels. The context is checked before every tile of the product and
// every query row.
func (m *model) scoreExact(ctx context.Context, dst []float64, row rowFunc, progress func(done int)) error {
	rows := len(dst)
	n, d := m.x.Dims()
	br := exactBlockRows(n, d, rows)
	nb := (rows + br - 1) / br
	kern, h := m.kern, m.h
	return forBlocks(ctx, nb, br, rows, func() func(int) {
		cb := newCrossBlock(br, n, d)
		var lk []float64
		if kern != Gaussian {
			lk = make([]float64, n)
		}
		return func(b int) {
			lo := b * br
			hi := min(lo+br, rows)
			for i := lo; i < hi; i++ {
				row(cb.row(i-lo), i)
			}
			if !cb.sqDists(ctx, m.x, m.sqn, hi-lo) {
				return // forBlocks reports ctx.Err()
			}
			for i := lo; i < hi; i++ {
				if ctx.Err() != nil {
					return // forBlocks reports ctx.Err()
				}
				r2 := cb.dists(i - lo)
				var ls float64
				if kern == Gaussian {
					ls = gaussianLogSum(r2, cb.min[i-lo], h)
				} else {
					for j, v := range r2 {
						lk[j] = kern.logProfile(math.Sqrt(v), v, h)
					}
					ls = logSumExp(lk)
				}
				dst[i] = -(ls + m.logNorm)
			}
		}
	}, progress)
}

// crossBlock computes the squared distances from a block of query rows Q
// (rows × d) to every training row x_j: ‖q‖² + ‖x_j‖² − 2qᵀx_j
// (fastmath.SqDist), with the inner products from fastmath.MulNN, a tile
// of training rows at a time, so that the training rows are read in
// place and never copied whole. With fewer columns than query rows the
// tile is transposed (Q·X_tileᵀ, d × tile values moved for rows × tile
// products); with more, Q is transposed once and the product taken the
// other way (X_tile·Qᵀ, then its tile × rows values moved into place).
// Each inner product is MulNN's, a fused multiply-add per column from
// zero, the same value whichever way it is taken. A worker owns one.
type crossBlock struct {
	d, n int
	tile int       // training rows of a tile
	q    []float64 // the query rows, br × d
	qn   []float64 // ‖q‖² of each query row
	t    []float64 // a tile of training rows transposed (d × tile), or Qᵀ (d × br)
	c    []float64 // X_tile·Qᵀ (tile × br), when d > br
	g    []float64 // the squared distances, br × n
	min  []float64 // the smallest squared distance of each query row
}

// crossTile returns the number of training rows of one tile of a
// crossBlock of br query rows: its tile of values (d × tile, or tile × br
// when d > br) near 2¹⁵ (256 kB, in the cache while it is used), from 8
// to 512 rows.
func crossTile(br, n, d int) int {
	return min(n, max(8, min(512, (1<<15)/max(min(d, br), 1))&^7))
}

func newCrossBlock(br, n, d int) *crossBlock {
	tile := crossTile(br, n, d)
	cb := &crossBlock{d: d, n: n, tile: tile, q: make([]float64, br*d), qn: make([]float64, br),
		g: make([]float64, br*n), min: make([]float64, br)}
	if d > br {
		cb.t, cb.c = make([]float64, d*br), make([]float64, tile*br)
	} else {
		cb.t = make([]float64, d*tile)
	}
	return cb
}

// row returns the slice of query row i, for the caller to fill.
func (cb *crossBlock) row(i int) []float64 { return cb.q[i*cb.d : (i+1)*cb.d] }

// dists returns the squared distances of query row i to the training
// rows (valid until the next sqDists).
func (cb *crossBlock) dists(i int) []float64 { return cb.g[i*cb.n : (i+1)*cb.n] }

// sqDists computes the squared distances of the first rows query rows to
// the training rows x (n × d, contiguous) whose squared norms are sqn,
// and their minima. It checks ctx before every tile and returns false,
// its work undone, once ctx has ended.
func (cb *crossBlock) sqDists(ctx context.Context, x *mat.Dense, sqn []float64, rows int) bool {
	d, n := cb.d, cb.n
	wide := cb.c != nil
	for i := 0; i < rows; i++ {
		q := cb.q[i*d : (i+1)*d]
		cb.qn[i] = fastmath.SumSquares(q)
		cb.min[i] = math.Inf(1)
		if wide {
			for l, v := range q {
				cb.t[l*rows+i] = v
			}
		}
	}
	data := x.RawMatrix().Data
	for t0 := 0; t0 < n; t0 += cb.tile {
		if ctx.Err() != nil {
			return false
		}
		w := min(cb.tile, n-t0)
		tile := data[t0*d : (t0+w)*d]
		if wide {
			fastmath.MulNN(cb.c, rows, tile, d, cb.t, rows, w, rows, d)
			for i := 0; i < rows; i++ {
				g := cb.g[i*n+t0 : i*n+t0+w]
				for j := range g {
					g[j] = cb.c[j*rows+i]
				}
			}
		} else {
			xt := cb.t[:d*w]
			for l := 0; l < d; l++ {
				col := xt[l*w : (l+1)*w]
				for j := range col {
					col[j] = tile[j*d+l]
				}
			}
			fastmath.MulNN(cb.g[t0:], n, cb.q, d, xt, w, rows, w, d)
		}
		for i := 0; i < rows; i++ {
			g := cb.g[i*n+t0 : i*n+t0+w]
			qn, mn := cb.qn[i], cb.min[i]
			for j, v := range g {
				r2 := fastmath.SqDist(qn, sqn[t0+j], v)
				g[j] = r2
				if r2 < mn {
					mn = r2
				}
			}
			cb.min[i] = mn
		}
	}
	return true
}

// gaussianLogSum returns log Σ_j exp(−r_j²/(2h²)) for the squared
// distances r2 (overwritten) whose smallest is minR2, the largest term
// factored out; −Inf when every r_j² is +Inf.
func gaussianLogSum(r2 []float64, minR2, h float64) float64 {
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
		return -0.5*(minR2/h)/h + math.Log(fastmath.ExpSum(r2, minR2, sc))
	}
	if ih := 1 / h; !math.IsInf(ih, 0) {
		ih2 := -0.5 * ih
		for j, v := range r2 {
			r2[j] = ((v - minR2) * ih2) * ih
		}
	} else {
		for j, v := range r2 {
			r2[j] = -0.5 * ((v - minR2) / h) / h
		}
	}
	fastmath.Exp(r2, r2) // math.Exp to two ulps, four at a time
	var s float64
	for _, v := range r2 {
		s += v
	}
	return -0.5*(minR2/h)/h + math.Log(s)
}

// exactBlockRows is the number of query rows one work item of the exact
// scorer (and of cross-validation) covers, of rows in all: 64, or fewer
// (at least 4) so that an item's distances stay near 2²⁰ values (8 MB)
// and its query rows near 2¹⁷ (1 MB), and a work item — a product of its
// rows with all n training rows — stays a few milliseconds long.
func exactBlockRows(n, d, rows int) int {
	return max(1, min(rows, max(4, min(blockRows, (1<<20)/max(n, 1), (1<<17)/max(d, 1)))))
}

// blockRows is the most query rows one work item covers.
const blockRows = 64
