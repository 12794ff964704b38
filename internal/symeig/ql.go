package symeig

import (
	"context"
	"math"
	"runtime"
	"sort"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// All returns every eigenvalue of the reduced matrix, in descending
// order, and its unit eigenvectors as the columns of a k × k matrix: the
// implicit QL iteration with Wilkinson shifts on J (EISPACK's tql2, the
// algorithm of LAPACK's dsteqr), its rotations accumulated into the rows
// of Sᵀ, then Q applied to S. gonum's Dsteqr accumulates them into the
// columns of a row-major matrix, one strided pass per rotation: 40 of the
// 49 s of an EigenSym at k = 2,000 here. Each QL sweep's rotations are
// recorded and then applied to Sᵀ's rows a block of columns at a time,
// the blocks split between the cores. It returns ctx.Err() between sweeps
// once ctx is done, and nil values when the iteration has not converged
// after maxSweeps·k sweeps.
func (r *Tridiag) All(ctx context.Context) ([]float64, *mat.Dense, error) {
	k := r.k
	d := append([]float64(nil), r.d...)
	e := make([]float64, k) // e[i] couples i and i+1; e[k−1] = 0
	copy(e, r.e)
	st := make([]float64, k*k) // Sᵀ: row j is the eigenvector of J for d[j]
	for i := 0; i < k; i++ {
		st[i*k+i] = 1
	}
	var rot rotations
	eps := math.Nextafter(1, 2) - 1
	// A coupling is negligible at eps·‖J‖ (EISPACK's tql2): relative to
	// its own diagonal entries instead, a cluster of zero eigenvalues (a
	// low-rank kernel matrix) never splits off.
	var normJ float64
	for i := 0; i < k; i++ {
		normJ = math.Max(normJ, math.Abs(d[i])+math.Abs(e[i]))
	}
	sweeps := 0
	for l := 0; l < k; l++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		for {
			m := l
			for ; m < k-1; m++ {
				if math.Abs(e[m]) <= eps*normJ {
					break
				}
			}
			if m == l {
				break
			}
			if sweeps++; sweeps > maxSweeps*k {
				return nil, nil, nil
			}
			g := (d[l+1] - d[l]) / (2 * e[l])
			rr := math.Hypot(g, 1)
			g = d[m] - d[l] + e[l]/(g+math.Copysign(rr, g))
			s, c, p := 1.0, 1.0, 0.0
			rot.begin(m)
			i := m - 1
			deflated := false
			for ; i >= l; i-- {
				f, b := s*e[i], c*e[i]
				rr = math.Hypot(f, g)
				e[i+1] = rr
				if rr == 0 { // an exact split: the sweep stops here
					d[i+1] -= p
					e[m] = 0
					deflated = true
					break
				}
				s, c = f/rr, g/rr
				g = d[i+1] - p
				rr = (d[i]-g)*s + 2*c*b
				p = s * rr
				d[i+1] = g + p
				g = c*rr - b
				rot.add(c, s)
			}
			rot.end(i + 1)
			if len(rot.cs) >= rotBatch {
				rot.apply(st, k)
			}
			if deflated {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	rot.apply(st, k)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return d[order[a]] > d[order[b]] })
	vals := make([]float64, k)
	z := mat.NewDense(k, max(k, 1), nil)
	zr := z.RawMatrix()
	for j, o := range order {
		// The copy writes z a column at a time (k² strided stores, 0.15 s
		// at k = 4,000): ctx is checked every 64 columns.
		if j%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		vals[j] = d[o]
		row := st[o*k : o*k+k]
		for i, v := range row {
			zr.Data[i*zr.Stride+j] = v
		}
	}
	if k > 1 { // z ← Q z: the reflectors act on rows 1..k−1
		if err := r.applyQ(ctx, zr.Data[zr.Stride:], zr.Stride, k); err != nil {
			return nil, nil, err
		}
	}
	return vals, z, nil
}

// AllBytes bounds the bytes All allocates for a k × k matrix beside the
// reduction: Sᵀ and the returned vectors, a batch of rotations, and
// applyQ's blocks.
func AllBytes(k int) int64 {
	K := int64(k)
	return 8*(2*K*K+rotBatch+2*K) + reflectorBytes(k, k, k)
}

// VectorsTBytes bounds the bytes VectorsT allocates for m vectors of a
// k × k matrix: the m × k rows and applyQT's blocks.
func VectorsTBytes(k, m int) int64 {
	return 8*int64(k)*int64(m) + reflectorBytes(k, m, k)
}

// reflectorBytes is applyReflectors' scratch for k reflectors and m
// vectors: V, Vᵀ, the two m × qBlock products and a block of qRows rows
// of width values per core (width is m for applyQ, k for applyQT).
func reflectorBytes(k, m, width int) int64 {
	K, M := int64(k), int64(m)
	return 8 * (2*qBlock*K + 2*qBlock*M + int64(runtime.GOMAXPROCS(0))*qRows*int64(width))
}

// maxSweeps is the number of QL sweeps per eigenvalue the whole
// iteration may take (LAPACK's dsteqr allows 30; a sweep converges
// cubically, and about 1.1 per eigenvalue were needed at k = 2,000).
const maxSweeps = 30

// rotations holds QL sweeps to apply to Sᵀ: sweep t rotates the row
// pairs (hi_t − 1, hi_t) down to (lo_t, lo_t + 1), with (c, s) pairs in
// cs in that order.
type rotations struct {
	bounds []int // lo_t, hi_t
	cs     []float64
}

// rotBatch is how many rotation values (two a rotation) are gathered
// before they are applied: Sᵀ is then read once per batch, a block of
// rotBlock columns at a time that stays in the cache through every sweep
// of the batch, instead of once per sweep (at k = 2,000, about 4,000
// sweeps over up to 32 MB).
const (
	rotBatch = 1 << 20
	rotBlock = 32
)

func (r *rotations) begin(hi int) { r.bounds = append(r.bounds, 0, hi) }

func (r *rotations) add(c, s float64) { r.cs = append(r.cs, c, s) }

// end records the sweep's last row pair (lo, lo+1).
func (r *rotations) end(lo int) { r.bounds[len(r.bounds)-2] = lo }

// apply applies the gathered sweeps in order to the k × k row-major st:
// with (c, s) the rotation of pair (i, i+1), rows i and i+1 become
// c·row_i − s·row_{i+1} and s·row_i + c·row_{i+1}. The columns are split
// between the cores in blocks of rotBlock; each block takes every sweep.
func (r *rotations) apply(st []float64, k int) {
	if len(r.bounds) == 0 {
		return
	}
	blocks := (k + rotBlock - 1) / rotBlock
	parallel.ForRanges(blocks, 1, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			c0, c1 := b*rotBlock, min((b+1)*rotBlock, k)
			at := 0
			for t := 0; t < len(r.bounds); t += 2 {
				lo, hi := r.bounds[t], r.bounds[t+1]
				fastmath.RotRows(st, k, c0, c1, r.cs[at:at+2*(hi-lo)], lo, hi)
				at += 2 * (hi - lo)
			}
		}
	})
	r.bounds, r.cs = r.bounds[:0], r.cs[:0]
}
