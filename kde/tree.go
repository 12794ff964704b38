package kde

import (
	"context"
	"math"

	"github.com/kernelad/anomaly/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// kdTree is a kd-tree over the (centred) training rows: each node holds a
// contiguous range of the reordered rows and their tight bounding box.
type kdTree struct {
	d     int
	data  []float64 // rows in tree order, n × d
	nodes []kdNode
	lo    []float64 // bounding box lower corners, one d-vector per node
	hi    []float64 // upper corners
}

type kdNode struct {
	start, end  int     // rows [start, end) of data
	left, right int     // child nodes; −1 for a leaf
	logCount    float64 // log(end − start)
}

// buildTree splits at the median of the widest coordinate until a node has
// fewer than 2·leafSize rows.
//
// The build checks ctx at every node and returns ctx.Err() once it is
// cancelled, so a cancelled fit stops building within one node's work.
func buildTree(ctx context.Context, x *mat.Dense, leafSize int) (*kdTree, error) {
	n, d := x.Dims()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	t := &kdTree{d: d}
	raw := x.RawMatrix()
	var build func(start, end int) int
	build = func(start, end int) int {
		id := len(t.nodes)
		t.nodes = append(t.nodes, kdNode{start: start, end: end, left: -1, right: -1, logCount: math.Log(float64(end - start))})
		lo := make([]float64, d)
		hi := make([]float64, d)
		copy(lo, x.RawRowView(idx[start]))
		copy(hi, lo)
		for _, i := range idx[start+1 : end] {
			for j, v := range x.RawRowView(i) {
				lo[j] = math.Min(lo[j], v)
				hi[j] = math.Max(hi[j], v)
			}
		}
		t.lo = append(t.lo, lo...)
		t.hi = append(t.hi, hi...)
		if end-start < 2*leafSize {
			return id
		}
		split, spread := 0, -1.0
		for j := 0; j < d; j++ {
			if s := hi[j] - lo[j]; s > spread {
				split, spread = j, s
			}
		}
		if spread == 0 {
			return id // all rows identical: nothing to split
		}
		if ctx.Err() != nil {
			return id // abandoned: buildTree returns ctx.Err()
		}
		mid := start + (end-start)/2
		selectNth(idx[start:end], mid-start, raw.Data[split:], raw.Stride)
		l := build(start, mid)
		r := build(mid, end)
		t.nodes[id].left, t.nodes[id].right = l, r
		return id
	}
	build(0, n)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.data = make([]float64, n*d)
	for k, i := range idx {
		copy(t.data[k*d:(k+1)*d], x.RawRowView(i))
	}
	return t, nil
}

// selectNth reorders idx so that idx[k] holds a row with the k-th smallest
// key (key(i) = col[i*stride]), rows with smaller-or-equal keys before it and
// greater-or-equal after: quickselect with a three-way partition, so runs of
// equal keys (duplicate rows) cost O(len) rather than O(len²).
func selectNth(idx []int, k int, col []float64, stride int) {
	key := func(i int) float64 { return col[idx[i]*stride] }
	lo, hi := 0, len(idx) // half-open
	for hi-lo > 1 {
		// median of three as the pivot value
		a, b, c := key(lo), key(lo+(hi-lo)/2), key(hi-1)
		p := math.Max(math.Min(a, b), math.Min(math.Max(a, b), c))
		// [lo, lt) < p, [lt, i) == p, [gt, hi) > p
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch v := key(i); {
			case v < p:
				idx[lt], idx[i] = idx[i], idx[lt]
				lt++
				i++
			case v > p:
				gt--
				idx[gt], idx[i] = idx[i], idx[gt]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return
		}
	}
}

// bounds returns the squared minimum and maximum distance from q to node i's
// bounding box.
func (t *kdTree) bounds(i int, q []float64) (min2, max2 float64) {
	lo := t.lo[i*t.d : (i+1)*t.d]
	hi := t.hi[i*t.d : (i+1)*t.d]
	for j, v := range q {
		a, b := lo[j]-v, v-hi[j]
		switch {
		case a > 0:
			min2 += a * a
		case b > 0:
			min2 += b * b
		}
		f := math.Max(v-lo[j], hi[j]-v)
		max2 += f * f
	}
	return min2, max2
}

// logAcc accumulates log Σ exp(l) without overflow: the value is a + log s.
type logAcc struct{ a, s float64 }

func (c *logAcc) add(l float64) {
	switch {
	case math.IsInf(l, -1):
	case c.s == 0:
		c.a, c.s = l, 1
	case l > c.a:
		c.s = c.s*math.Exp(c.a-l) + 1
		c.a = l
	default:
		c.s += math.Exp(l - c.a)
	}
}

func (c *logAcc) value() float64 {
	if c.s == 0 {
		return math.Inf(-1)
	}
	return c.a + math.Log(c.s)
}

// logAddExp returns log(e^a + e^b).
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logSubExp returns log(e^a − e^b) for a ≥ b (−Inf when a ≤ b).
func logSubExp(a, b float64) float64 {
	if a <= b {
		return math.Inf(-1)
	}
	return a + math.Log1p(-math.Exp(b-a))
}

// treeQuery holds one query's state.
type treeQuery struct {
	t         *kdTree
	kern      Kernel
	h         float64
	q         []float64
	buf       []float64
	sum, low  logAcc  // Σ K over exact rows and pruned-node midpoints; lower bound
	logATol   float64 // log(atol/c): absolute tolerance on the mean kernel
	logRTol   float64
	logTolMax float64 // log(atol/c + rtol): no node with a wider spread is pruned
	logN      float64
	pruned    int
}

func (s *treeQuery) logK(r2 float64) float64 {
	if s.kern == Gaussian {
		return -0.5 * r2 / (s.h * s.h)
	}
	return s.kern.logProfile(math.Sqrt(r2), r2, s.h)
}

// visit adds node i's contribution. kMax = log K at the node's minimum
// distance, kMin at its maximum; rest is log of the lower bounds of the
// nodes still waiting on the stack.
func (s *treeQuery) visit(i int, kMax, kMin, rest float64) {
	nd := &s.t.nodes[i]
	if kMax <= kMin {
		// Every row of the node has the same kernel value (a point-like node,
		// or a whole node outside, or inside, a flat kernel's support).
		s.sum.add(nd.logCount + kMax)
		s.low.add(nd.logCount + kMax)
		s.pruned++
		return
	}
	if spread := logSubExp(kMax, kMin); spread <= s.logTolMax {
		// The mean kernel is at most 1, so the tolerance is at most
		// atol/c + rtol (logTolMax); only then is the exact test worth its
		// logarithms.
		lowTotal := logAddExp(logAddExp(s.low.value(), rest), nd.logCount+kMin)
		tol := logAddExp(s.logATol, s.logRTol+lowTotal-s.logN)
		if spread <= tol {
			// midpoint of [N·K_min, N·K_max]; its error is at most
			// N(K_max − K_min)/2 ≤ (N/n)(atol/c + rtol·(mean kernel))/2.
			s.sum.add(nd.logCount + logAddExp(kMax, kMin) - math.Ln2)
			s.low.add(nd.logCount + kMin)
			s.pruned++
			return
		}
	}
	if nd.left < 0 {
		d := s.t.d
		rows := s.t.data[nd.start*d : nd.end*d]
		buf := s.buf[:nd.end-nd.start]
		for k := range buf {
			row := rows[k*d : (k+1)*d]
			var r2 float64
			for j, v := range s.q {
				dv := v - row[j]
				r2 += dv * dv
			}
			buf[k] = s.logK(r2)
		}
		l := logSumExp(buf)
		s.sum.add(l)
		s.low.add(l)
		return
	}
	a, b := nd.left, nd.right
	amin, amax := s.t.bounds(a, s.q)
	bmin, bmax := s.t.bounds(b, s.q)
	if bmin < amin {
		a, b = b, a
		amin, amax, bmin, bmax = bmin, bmax, amin, amax
	}
	bKMax, bKMin := s.logK(bmin), s.logK(bmax)
	s.visit(a, s.logK(amin), s.logK(amax), logAddExp(rest, s.t.nodes[b].logCount+bKMin))
	s.visit(b, bKMax, bKMin, rest)
}

// scoreTree sets dst[i] = −log p̂(x_i) through the tree.
func (k *KDE) scoreTree(ctx context.Context, dst []float64, X mat.Matrix, centred bool) error {
	m, _ := X.Dims()
	nb := (m + blockRows - 1) / blockRows
	logC := k.logNorm + math.Log(float64(k.n)) // log c(h, d)
	logATol, logRTol := math.Inf(-1), math.Inf(-1)
	if k.cfg.ATol > 0 {
		logATol = math.Log(k.cfg.ATol) - logC
	}
	if k.cfg.RTol > 0 {
		logRTol = math.Log(k.cfg.RTol)
	}
	maxLeaf := 0
	for _, nd := range k.tree.nodes {
		maxLeaf = max(maxLeaf, nd.end-nd.start)
	}
	return parallel.ForBlocksContext(ctx, nb, func() func(int) {
		s := &treeQuery{t: k.tree, kern: k.cfg.Kernel, h: k.h, q: make([]float64, k.d),
			buf: make([]float64, min(maxLeaf, k.n)), logATol: logATol, logRTol: logRTol, logN: math.Log(float64(k.n)),
			logTolMax: logAddExp(logATol, logRTol)}
		return func(b int) {
			lo := b * blockRows
			hi := min(lo+blockRows, m)
			for i := lo; i < hi; i++ {
				if ctx.Err() != nil {
					return // ForBlocksContext reports ctx.Err()
				}
				k.queryRow(s.q, X, i, centred)
				s.sum, s.low = logAcc{}, logAcc{}
				r0, r1 := s.t.bounds(0, s.q)
				s.visit(0, s.logK(r0), s.logK(r1), math.Inf(-1))
				dst[i] = -(s.sum.value() + k.logNorm)
			}
		}
	})
}
