package kde

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
)

// kdTree is a kd-tree over the (centred) training rows: each node holds a
// contiguous range of the reordered rows and their tight bounding box.
type kdTree struct {
	d     int
	data  []float64 // rows in tree order, n × d (the model's rows, reordered in place)
	pos   []int     // pos[i] is the place in data of training row i
	nodes []kdNode
	lo    []float64 // bounding box lower corners, one d-vector per node
	hi    []float64 // upper corners
}

type kdNode struct {
	start, end  int     // rows [start, end) of data
	left, right int     // child nodes; −1 for a leaf
	logCount    float64 // log(end − start)
}

// treeNodes is the most nodes a tree of n rows with leaves of leafSize
// has: a node of at least 2·leafSize rows is split in two halves, so
// every leaf but a root of fewer rows holds at least leafSize rows.
func treeNodes(n, leafSize int) int {
	return 2*max(1, n/max(leafSize, 1)) - 1
}

// buildTree splits at the median of the widest coordinate until a node has
// fewer than 2·leafSize rows, and then reorders the rows of x in place
// into the tree's order (x is contiguous: stride d). Progress is "tree",
// in rows placed in leaves.
//
// The build checks ctx at every node and returns ctx.Err() once it is
// cancelled, so a cancelled fit stops building within one node's work; x
// is then left in its order.
func buildTree(ctx context.Context, x *mat.Dense, leafSize int, report func(stage string, done, total int)) (*kdTree, error) {
	n, d := x.Dims()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	nodes := treeNodes(n, leafSize)
	t := &kdTree{d: d, nodes: make([]kdNode, 0, nodes), lo: make([]float64, 0, nodes*d), hi: make([]float64, 0, nodes*d)}
	raw := x.RawMatrix()
	placed, next := 0, 0
	step := max(1, n/128) // rows between two reports
	report("tree", 0, n)
	var build func(start, end int) int
	build = func(start, end int) int {
		id := len(t.nodes)
		t.nodes = append(t.nodes, kdNode{start: start, end: end, left: -1, right: -1, logCount: math.Log(float64(end - start))})
		lo := t.lo[len(t.lo) : len(t.lo)+d]
		hi := t.hi[len(t.hi) : len(t.hi)+d]
		t.lo, t.hi = t.lo[:len(t.lo)+d], t.hi[:len(t.hi)+d]
		copy(lo, x.RawRowView(idx[start]))
		copy(hi, lo)
		for _, i := range idx[start+1 : end] {
			for j, v := range x.RawRowView(i) {
				lo[j] = math.Min(lo[j], v)
				hi[j] = math.Max(hi[j], v)
			}
		}
		leaf := func() int {
			if placed += end - start; placed >= next {
				report("tree", placed, n)
				next = placed + step
			}
			return id
		}
		if end-start < 2*leafSize {
			return leaf()
		}
		split, spread := 0, -1.0
		for j := 0; j < d; j++ {
			if s := hi[j] - lo[j]; s > spread {
				split, spread = j, s
			}
		}
		if spread == 0 {
			return leaf() // all rows identical: nothing to split
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
	report("tree", n, n)
	t.pos = make([]int, n)
	for k, i := range idx {
		t.pos[i] = k
	}
	permuteRows(raw.Data, d, idx)
	t.data = raw.Data[:n*d]
	return t, nil
}

// permuteRows reorders the rows of data (d values each) in place so that
// row k becomes what row idx[k] was, following the permutation's cycles
// with one row of scratch; idx is consumed (its entries are marked −1).
func permuteRows(data []float64, d int, idx []int) {
	tmp := make([]float64, d)
	for k := range idx {
		if idx[k] < 0 || idx[k] == k {
			continue
		}
		copy(tmp, data[k*d:(k+1)*d]) // row k's values, wanted at the end of its cycle
		j := k
		for {
			src := idx[j]
			idx[j] = -1
			if src == k {
				copy(data[j*d:(j+1)*d], tmp)
				break
			}
			copy(data[j*d:(j+1)*d], data[src*d:(src+1)*d])
			j = src
		}
	}
}

// rowMajor returns the tree's rows in the training rows' order, n × d (a
// copy), for the model's state.
func (t *kdTree) rowMajor() []float64 {
	d := t.d
	out := make([]float64, len(t.data))
	for i, p := range t.pos {
		copy(out[i*d:(i+1)*d], t.data[p*d:(p+1)*d])
	}
	return out
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
	h, hh     float64 // the bandwidth and its square
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
	if s.kern == Gaussian && s.hh > 0 && s.hh <= math.MaxFloat64 {
		return -0.5 * r2 / s.hh
	}
	// Other kernels, and a Gaussian whose h² underflows to 0 (h below
	// 1e-154) or overflows (above 1e154), where −r²/(2h²) would be 0/0 at
	// r = 0 or ∞/∞ at r² = ∞: (r²/h)/h.
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

// scoreTree sets dst[i] = −log p̂ of query row i through the tree, checking
// ctx before every row.
func (m *model) scoreTree(ctx context.Context, dst []float64, row rowFunc, progress func(done int)) error {
	rows := len(dst)
	n, d := m.x.Dims()
	nb := (rows + blockRows - 1) / blockRows
	logC := m.logNorm + math.Log(float64(n)) // log c(h, d)
	logATol, logRTol := math.Inf(-1), math.Inf(-1)
	if m.atol > 0 {
		logATol = math.Log(m.atol) - logC
	}
	if m.rtol > 0 {
		logRTol = math.Log(m.rtol)
	}
	maxLeaf := 0
	for _, nd := range m.tree.nodes {
		if nd.left < 0 {
			maxLeaf = max(maxLeaf, nd.end-nd.start)
		}
	}
	return forBlocks(ctx, nb, blockRows, rows, func() func(int) {
		s := &treeQuery{t: m.tree, kern: m.kern, h: m.h, hh: m.h * m.h, q: make([]float64, d),
			buf: make([]float64, maxLeaf), logATol: logATol, logRTol: logRTol, logN: math.Log(float64(n)),
			logTolMax: logAddExp(logATol, logRTol)}
		return func(b int) {
			lo := b * blockRows
			hi := min(lo+blockRows, rows)
			for i := lo; i < hi; i++ {
				if ctx.Err() != nil {
					return // forBlocks reports ctx.Err()
				}
				row(s.q, i)
				s.sum, s.low = logAcc{}, logAcc{}
				r0, r1 := s.t.bounds(0, s.q)
				s.visit(0, s.logK(r0), s.logK(r1), math.Inf(-1))
				dst[i] = -(s.sum.value() + m.logNorm)
			}
		}
	}, progress)
}
