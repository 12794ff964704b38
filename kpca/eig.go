package kpca

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/hugepage"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/internal/symeig"
	"gonum.org/v1/gonum/floats"

	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// denseMax is the largest n for which the top eigenpairs come from a full
// symmetric eigendecomposition; above it block Lanczos is used (at n = 1000,
// q = 50 gonum's EigenSym took 1.6–3.8 s, Lanczos 0.26 s). A variable so
// tests can force either path.
var denseMax = 300

// lanczosTol is the convergence test of block Lanczos: every wanted Ritz
// pair (θ, y) must have ‖Ky − θy‖ ≤ lanczosTol·θ_1.
const lanczosTol = 1e-10

// eigTarget says how many leading eigenpairs are wanted: q > 0 exactly q;
// otherwise the fewest whose eigenvalues sum to at least frac·trace.
type eigTarget struct {
	q     int
	frac  float64
	trace float64
}

// count returns how many of the descending eigenvalues vals the target
// needs, and whether vals suffice to decide.
func (t eigTarget) count(vals []float64) (int, bool) {
	if t.q > 0 {
		return t.q, len(vals) >= t.q
	}
	var s float64
	for i, v := range vals {
		s += math.Max(v, 0)
		if s >= t.frac*t.trace {
			return i + 1, true
		}
	}
	return len(vals), false
}

// topEigen returns the leading eigenpairs of the symmetric positive
// semi-definite n × n matrix a (its upper triangle, j ≥ i, is read; the
// dense route overwrites the lower one), in descending order, as many as
// target asks for: vals and the unit eigenvectors as the rows of a q × n
// matrix, the layout the exact fit keeps (its projection is scored a
// component at a time; the dense route forms them so without a second
// n × q matrix, symeig's VectorsT).
//
// report (may be nil) receives the progress of the stages it runs: block
// Lanczos reports "eigen", the Lanczos vectors formed so far against their
// budget, which grows by the room each restart frees, and ends at its
// total (repeated, unchanged, during each Rayleigh–Ritz step, which
// takes seconds with hundreds of pairs); the dense route above denseMax rows reports "reduce" and
// "vectors" (see denseTop).
func topEigen(ctx context.Context, a *mat.Dense, target eigTarget, rng *rand.Rand, report func(stage string, done, total int)) ([]float64, *mat.Dense, error) {
	if report == nil {
		report = func(string, int, int) {}
	}
	n, _ := a.Dims()
	if n <= denseMax || (target.q > 0 && 4*target.q > n) {
		return denseTop(ctx, a, target, report)
	}
	total := 0
	vals, vecs, err := blockLanczos(ctx, a, target.lanczosStart(), target, rng, func(done, t int) {
		total = t
		report("eigen", done, t)
	})
	if err != nil {
		return nil, nil, err
	}
	report("eigen", total, total)
	q, ok := target.count(vals)
	if vals == nil || !ok { // basis budget exhausted: decide densely
		return denseTop(ctx, a, target, report)
	}
	return vals[:q], transposed(vecs.Slice(0, n, 0, q).(*mat.Dense)), nil
}

// transposed returns a new matrix holding mᵀ (nil for nil).
func transposed(m *mat.Dense) *mat.Dense {
	if m == nil {
		return nil
	}
	r, c := m.Dims()
	t := mat.NewDense(c, r, nil)
	for i := 0; i < r; i++ {
		for j, v := range m.RawRowView(i) {
			t.Set(j, i, v)
		}
	}
	return t
}

// denseBytes bounds the bytes denseTop allocates beside the n × n matrix
// (see eigenBytes).
func denseBytes(n, q int, frac float64) int64 {
	N := int64(n)
	if n <= denseMax {
		return 4 * 8 * N * N
	}
	qd := int64(q)
	if q == 0 {
		qd = int64(math.Ceil(frac * float64(n)))
	}
	return symeig.VectorsTBytes(n, int(qd)) + symeig.ReduceBytes(n)
}

// lanczosStart is the pair count a block Lanczos run starts from: the
// target's count, or 16 for a variance target (the run grows it).
func (t eigTarget) lanczosStart() int {
	if t.q > 0 {
		return t.q
	}
	return 16
}

// basisColumns returns the block size b of a block Lanczos run for q
// pairs of an n × n matrix (a multiple of four: symMulBlock takes columns
// four at a time) and the basis budget maxK (blockLanczos has the reasons).
func basisColumns(n, q int) (b, maxK int) {
	b = (max(8, q/4) + 3) &^ 3
	return b, min(n/2, max(40*b, 10*q))
}

// eigenBytes bounds the bytes topEigen allocates beside the n × n matrix
// for q pairs, or, when q is 0, for the fewest pairs whose eigenvalues
// reach the share frac of the trace (at most ⌈frac·n⌉ of them: the
// leading q of n eigenvalues hold at least q/n of the sum).
//   - Up to denseMax rows, gonum's EigenSym: its copies of the matrix and
//     all n vectors, 4n² values.
//   - The dense route (above denseMax: 4q > n, or a Lanczos run that used
//     up its budget): the q vectors (symeig.VectorsTBytes) and the
//     reduction's panel and scratch with syr2kLower's two copies of it.
//   - Block Lanczos: the basis V and its image W, n × maxK each (resident
//     only as far as the basis has grown, but a run that restarts fills
//     its budget, so the bound counts it whole), the Ritz vectors y and a·y it
//     forms (up to maxK columns each when it restarts), the maxK × maxK
//     matrix T and the block's scratch.
//
// The fit's peak is the matrix plus the larger of the routes it may take.
// Not counted: the full decomposition that denseTop falls back to when
// inverse iteration breaks down (three more n × n matrices), which no
// test or data set has reached.
func eigenBytes(n, q int, frac float64) int64 {
	dense := denseBytes(n, q, frac)
	if n <= denseMax || (q > 0 && 4*q > n) {
		return dense
	}
	N := int64(n)
	want := eigTarget{q: q}.lanczosStart()
	b, maxK := basisColumns(n, want)
	form := int64(maxK) // a variance target grows q up to the budget
	if q > 0 {
		form = int64(max(q, restartKeep(q, b, maxK)))
	}
	K, B := int64(maxK), int64(b)
	lanczos := 8 * (2*N*K + 2*N*form + K*K + N*5*B)
	return max(lanczos, dense)
}

// denseTop computes the leading eigenpairs without Lanczos (vectors as
// rows, as topEigen returns them). Up to
// denseMax rows that is a full symmetric eigendecomposition (gonum's
// EigenSym). Above, it is the path of the Lanczos matrix on a itself: one
// tridiagonal reduction, in a's own storage (symeig.ReduceUpperInPlace: a's lower
// triangle is overwritten; its upper triangle and diagonal are kept), all
// eigenvalues from it, and only the wanted eigenvectors, by inverse
// iteration and the reflectors.
// On the RBF kernel of 2,000 rows of 784 uniform features, EigenSym, which
// forms all n eigenvectors, took 41–52 s for the 50 leading pairs; this
// route with gonum's Dsytrd 8.3 s (residuals 1.2e-14·λ_1), and with
// sytrdLower 1.6 s (600 pairs: 2.8 s). It makes no n × n copy; EigenSym
// makes three. Up to denseMax rows it does not look at ctx (a fraction of
// a second) and reports nothing; above, the reduction and the vectors
// return ctx.Err() once ctx is done (symeig looks at it between the
// columns and tiles of a panel and between vectors), and report the stages "reduce" (columns reduced, of n) and "vectors"
// (symeig's steps of VectorsTProgress).
func denseTop(ctx context.Context, a *mat.Dense, target eigTarget, report func(stage string, done, total int)) ([]float64, *mat.Dense, error) {
	n, _ := a.Dims()
	if report == nil {
		report = func(string, int, int) {}
	}
	if n > denseMax {
		red, err := symeig.ReduceUpperInPlaceProgress(ctx, a, func(done, total int) { report("reduce", done, total) })
		if err != nil {
			return nil, nil, err
		}
		if all := red.Values(); all != nil {
			q, _ := target.count(all)
			vecs, err := red.VectorsTProgress(ctx, all[:q], func(done, total int) { report("vectors", done, total) })
			if err != nil {
				return nil, nil, err
			}
			if vecs != nil {
				return all[:q], vecs, nil
			}
		}
		// Inverse iteration broke down: the full decomposition reads the
		// upper triangle, which the reduction has left as it was.
	}
	sym := symOf(a)
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return nil, nil, errors.New("kpca: eigendecomposition failed")
	}
	asc := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = asc[n-1-i]
	}
	q, _ := target.count(vals)
	vecs := mat.NewDense(max(q, 1), n, nil)
	for j := 0; j < q; j++ {
		for i := 0; i < n; i++ {
			vecs.Set(j, i, u.At(i, n-1-j))
		}
	}
	return vals[:q], vecs, nil
}

// blockLanczos computes the q leading eigenpairs of a by block Lanczos
// (a block Krylov space K V_0, K² V_0, … with full reorthogonalisation and
// Rayleigh–Ritz after every block). The block size is max(8, q/4), rounded
// up to a multiple of four; each step is one pass over a (symMulBlock).
// Larger blocks make a pass cheaper per column but need more columns in
// all; once the reorthogonalisation and the Ritz pairs cost little (Cholesky
// QR, one tridiagonal reduction a step), q/4 beat q/2, q·2/5 and q/3 on the
// first 5,000 training rows of six ADBench sets (q = 50: 10_cover 1.09 →
// 0.70 s, 24_mnist 1.53 → 0.90 s, 30_satellite, 28_pendigits,
// 23_mammography and 32_shuttle 0.57–0.68 s; q = 20 likewise), with bases
// of 156–252 columns instead of 224–392. It stops when the wanted Ritz pairs
// have residuals ≤ lanczosTol·θ_1: all q for a component count, and for a
// variance target only the leading ones whose Ritz values already reach
// the fraction of the trace (on the 7,000 rows of 10_cover at the default
// 0.5: 12 steps instead of 15), returning just those.
//
// The basis has a budget of min(n/2, max(40 blocks, 10q)) vectors (with 12 blocks for a
// component count, as before, 24_mnist's 5,322 rows at q = 9 ran out of
// basis). When it is full, the run restarts thickly (restartKeep vectors,
// see there) and goes on; after restartBudget budgets of vectors in all it
// returns nil values, and topEigen falls back to denseTop. Before the
// restarts, 2,000 rows of 784 uniform features at q = 50 (eigenvalues
// 2.4 … 2.07 … among 784 of a bulk) ran out of basis at residuals of
// 3e-7·θ_1 and took the dense path for 41–52 s; they now converge in
// 588 vectors and 0.8 s (ARPACK, through scikit-learn: 341 products,
// 0.42 s). Rayleigh–Ritz is skipped at a step while the passes since the
// last one cost less than it (rrWeight). With a variance target q is only a
// first guess: once the Ritz values show that more leading pairs are
// needed to reach the fraction, q grows to that count and the same basis
// goes on (on 24_mnist's 5,322 rows, 28 pairs: 1.8 s → 1.1 s against
// starting again with 2q).
func blockLanczos(ctx context.Context, a *mat.Dense, q int, target eigTarget, rng *rand.Rand, progress func(done, total int)) ([]float64, *mat.Dense, error) {
	n, _ := a.Dims()
	// maxK leaves room for slow convergence and, with a variance target,
	// for q to grow (below) without starting again.
	b, maxK := basisColumns(n, q)
	// The basis and its image are mapped afresh for the whole budget and
	// unmapped on return (the Ritz vectors returned are new matrices);
	// from the Go heap the runtime would zero all maxK columns first
	// (36 MB at n = 7,000 for a variance target, 40 ms here). They are
	// row-major with a row stride, c, that grows with the basis (see
	// growBasis), so that only the first n·c values of each mapping are
	// written and resident: most runs stop well short of the budget (on
	// 5,000 rows of 10_cover at q = 50, at about half of its 500 columns),
	// and with the stride at maxK from the start every row would touch
	// its pages with the first block. The memory estimate (eigenBytes)
	// still counts the full budget, which a run that restarts reaches.
	vData, freeV := hugepage.Reserve(n * maxK)
	defer freeV()
	wData, freeW := hugepage.Reserve(n * maxK)
	defer freeW()
	c := min(maxK, 2*(q+b))
	hugepage.Prefault(vData[:n*c])
	hugepage.Prefault(wData[:n*c])
	v := mat.NewDense(n, c, vData[:n*c]) // orthonormal basis, column blocks
	w := mat.NewDense(n, c, wData[:n*c]) // a · v
	t := mat.NewDense(maxK, maxK, nil)
	blk := mat.NewDense(n, b, nil)
	// vᵀ and the accumulators of symMulBlock with rows of a multiple of
	// four values, like the matrix's (see fit): then all its slices lie
	// at one offset from a 32-byte boundary and its kernel runs aligned.
	ps := paddedStride(n)
	blkT := mat.NewDense(b, ps, nil).Slice(0, b, 0, n).(*mat.Dense)
	pt := make([]float64, b*n) // scratch of project and the new columns of T
	acc := make([]float64, 2*b*ps)
	for i := 0; i < n; i++ {
		for j := 0; j < b; j++ {
			blk.Set(i, j, rng.NormFloat64())
		}
	}
	k := 0
	var prev []float64  // the previous step's leading Ritz values
	var hPrev []float64 // (A·v_new)ᵀV of the last step, b × k: blk = A·v_new; nil after a restart
	// done counts the columns multiplied by a, restarts included, against
	// total: maxK for the first basis, plus the room each restart frees.
	done, total := 0, maxK
	// beat reports the count again, unchanged, from inside a
	// Rayleigh–Ritz step: with hundreds of pairs (k near 2,000, n in the
	// thousands) the reduction, the vectors of T and the Ritz vectors
	// V·s take seconds between two blocks.
	beat := func(int, int) {
		if progress != nil {
			progress(done, total)
		}
	}
	since := 0.0 // flops of the passes since the last Rayleigh–Ritz
	for k+b <= maxK {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if k+b > c {
			to := min(maxK, max(k+b, c+c/2))
			v = growBasis(vData, n, k, c, to)
			w = growBasis(wData, n, k, c, to)
			c = to
		}
		// orthonormalise the new block against the basis (twice) and itself;
		// the first pass's coefficients Vᵀ(A v_prev) are the last step's new
		// columns of T, hPrev, so only the second pass forms Vᵀ·blk.
		vk := v.Slice(0, n, 0, max(k, 1)).(*mat.Dense)
		for pass := 0; pass < 2; pass++ {
			var err error
			switch {
			case k > 0 && pass == 0 && hPrev != nil:
				err = subtractSpan(ctx, blk, vk, hPrev)
			case k > 0:
				err = project(ctx, blk, vk, pt)
			}
			if err == nil {
				err = orthonormalise(ctx, blk, pt)
			}
			if err != nil {
				return nil, nil, err
			}
		}
		v.Slice(0, n, k, k+b).(*mat.Dense).Copy(blk)
		wk := w.Slice(0, n, k, k+b).(*mat.Dense)
		if err := symMulBlock(ctx, wk, a, blk, blkT, acc); err != nil {
			return nil, nil, err
		}
		k += b
		done += b
		if progress != nil {
			progress(done, total)
		}
		// new columns of T = Vᵀ A V
		vAll := v.Slice(0, n, 0, k).(*mat.Dense)
		// (wkᵀ V) is b × k: row c gives column k−b+c of T and, for the
		// old columns i < k−b, its transposed entry.
		h, err := mulTN(ctx, wk, vAll, pt)
		if err != nil {
			return nil, nil, err
		}
		for c := 0; c < b; c++ {
			j := k - b + c
			for i := 0; i < k; i++ {
				t.Set(i, j, h[c*k+i])
				if i < k-b {
					t.Set(j, i, h[c*k+i])
				}
			}
		}
		for i := k - b; i < k; i++ { // symmetrise the diagonal block
			for j := i + 1; j < k; j++ {
				s := (t.At(i, j) + t.At(j, i)) / 2
				t.Set(i, j, s)
				t.Set(j, i, s)
			}
		}
		// The next block is A times this one (the Krylov direction), unless
		// the pairs below have converged.
		blk.Copy(wk)
		hPrev = h
		if k < q {
			continue
		}
		// Rayleigh–Ritz costs an O(k³) reduction; it is done when the
		// passes since the last one have cost as much (see rrWeight), or
		// when the basis is full.
		since += 2 * float64(n) * float64(n) * float64(b)
		if rr := rrWeight * 4 / 3 * float64(k) * float64(k) * float64(k); since < rr && k+b <= maxK {
			continue
		}
		since = 0
		// The Ritz vectors cost an O(k³) eigendecomposition with vectors;
		// the values alone are O(k²). Until the q leading Ritz values stop
		// moving (they converge quadratically faster than the vectors, so
		// the residual test cannot pass before), only the values are
		// computed.
		red, err := symeig.ReduceContextProgress(ctx, t.Slice(0, k, 0, k).(*mat.Dense), beat)
		if err != nil { // each of these steps is O(k³)
			return nil, nil, err
		}
		tv := red.Values()
		if target.q == 0 && tv != nil {
			// Ritz values only grow with the basis, so the count of
			// leading Ritz values reaching the fraction is at least the
			// count of eigenvalues the target needs: grow q to it, or
			// keep extending the basis while no count reaches it.
			m, ok := target.count(tv)
			if !ok {
				prev = nil
				continue
			}
			q = max(q, m)
		}
		all := tv
		if tv != nil {
			tv = tv[:min(q, len(tv))]
		}
		settled := prev != nil && len(prev) >= q && k+b <= maxK
		for j := 0; j < q && settled && tv != nil; j++ {
			settled = math.Abs(tv[j]-prev[j]) <= valueSettle*math.Abs(tv[0])
		}
		prev = tv
		if !settled && tv != nil && k+b <= maxK {
			continue
		}
		// With the basis full, the Ritz pairs kept by a restart are formed
		// along with the q tested.
		form := q
		keep := restartKeep(q, b, maxK)
		full := k+b > maxK
		if full && keep > 0 && done+maxK-keep <= restartBudget*maxK {
			form = keep
		}
		var vals []float64
		var y, ky *mat.Dense
		var s *mat.Dense // the Ritz vectors of T, k × form
		if tv != nil {
			vals, s, err = ritzFrom(ctx, red, all, form, beat)
			if err != nil {
				return nil, nil, err
			}
		}
		if s == nil { // the tridiagonal route broke down: the full decomposition
			vals, s = ritz(t.Slice(0, k, 0, k).(*mat.Dense), form)
		}
		if s == nil {
			return nil, nil, errors.New("kpca: eigendecomposition of the Lanczos matrix failed")
		}
		if y, err = mulDenseContext(ctx, vAll, s, beat); err != nil {
			return nil, nil, err
		}
		if ky, err = mulDenseContext(ctx, w.Slice(0, n, 0, k).(*mat.Dense), s, beat); err != nil {
			return nil, nil, err
		}
		// Only the pairs the target needs must converge: with a variance
		// target, the fewest leading Ritz values that already sum to the
		// fraction (Ritz values only grow with the basis, so the true
		// eigenvalues' sum is at least as large).
		need := q
		if m, ok := target.count(vals); ok && target.q == 0 {
			need = m
		}
		conv := true
		res := make([]float64, n)
		for j := 0; j < need && conv; j++ {
			var s float64
			for i := 0; i < n; i++ {
				res[i] = ky.At(i, j) - vals[j]*y.At(i, j)
				s += res[i] * res[i]
			}
			if math.Sqrt(s) > lanczosTol*math.Max(vals[0], 0) {
				conv = false
			}
		}
		if conv {
			return vals[:need], y.Slice(0, n, 0, need).(*mat.Dense), nil
		}
		if full && form > q && len(vals) == form {
			// Thick restart: the basis becomes the form leading Ritz
			// vectors Y, with a·Y beside them and T = diag(θ); the next
			// block, a·v_last, still holds every Ritz residual's direction
			// (a·Y = YΘ + (I − VVᵀ)·a·v_last·S_last), so the space stays a
			// Krylov space and the wanted pairs go on converging.
			// The residual directions are (I − VVᵀ)·a·v_last for the
			// whole basis V: the next block is projected out of V before
			// V shrinks to Y (projected out of Y alone, it would keep the
			// components along the dropped Ritz vectors and the space
			// would no longer be a Krylov space).
			for range 2 {
				if err := project(ctx, blk, vAll, pt); err != nil {
					return nil, nil, err
				}
			}
			v.Slice(0, n, 0, form).(*mat.Dense).Copy(y)
			w.Slice(0, n, 0, form).(*mat.Dense).Copy(ky)
			for i := 0; i < form; i++ {
				row := t.RawRowView(i)[:form]
				clear(row)
				row[i] = vals[i]
			}
			k = form
			hPrev = nil
			total += maxK - form
		}
	}
	return nil, nil, nil
}

// growBasis widens the row-major n × from matrix at the start of data,
// of which the first k columns are in use, to n × to (from < to), in
// place, and returns it. The rows move to higher offsets, the last first,
// so that none is overwritten before it has moved; only the k columns in
// use are copied. The grown part of data is populated first, in one call.
func growBasis(data []float64, n, k, from, to int) *mat.Dense {
	hugepage.Prefault(data[:n*to])
	for i := n - 1; i > 0; i-- {
		copy(data[i*to:i*to+k], data[i*from:i*from+k])
	}
	return mat.NewDense(n, to, data[:n*to])
}

// restartBudget bounds the columns a block Lanczos run may multiply by the
// matrix, restarts included, in units of its basis budget; past it the
// run gives up and topEigen falls back to the full decomposition.
const restartBudget = 6

// rrWeight is the cost of a flop of Rayleigh–Ritz (sytrdLower on the k × k
// Lanczos matrix) in flops of a pass over the kernel matrix (symMulBlock):
// BenchmarkLanczosParts measured 2.9–4.9 GFlop/s against 26–33 GFlop/s, a
// ratio of 5–11. On 2,000 rows of uniform features (784 features with
// q = 50 and 20, 200 with q = 50 and with 4× the scale's γ at q = 20, 50
// with q = 9) weights of 3, 5, 7 and 10 took 2.10–2.26 s in all and
// Rayleigh–Ritz at every step 2.60 s (1.18 s against 0.71 s on the
// hardest); with gonum's Dsytrd (1.7–2.4 GFlop/s) the hardest took 1.74 s
// at every step and 0.77 s at 7. From about 5,000 rows a pass costs more
// than the reduction and Rayleigh–Ritz runs at every step.
const rrWeight = 7.0

// restartKeep is the number of leading Ritz pairs a thick restart keeps:
// halfway between q and the basis budget, as ARPACK keeps nev + (ncv −
// nev)/2, at least q plus a block, and leaving room for two blocks; 0 when
// the budget has no room for that.
func restartKeep(q, b, maxK int) int {
	keep := max(q+b, (q+maxK)/2)
	if keep+2*b > maxK {
		return 0
	}
	return keep
}

// valueSettle is the relative change of the leading Ritz values between
// two Lanczos steps below which the Ritz vectors are formed and their
// residuals tested.
const valueSettle = 1e-12

// ritzFrom returns the q leading Ritz values (of the descending
// eigenvalues vals of the reduced projected matrix red) and the vectors s
// of T they belong to (k × q, from inverse iteration:
// symeig.Tridiag.Vectors), the Ritz vectors being V·s; nil vectors when
// inverse iteration breaks down, ctx.Err() once ctx is done; progress
// (may be nil) receives symeig's steps.
func ritzFrom(ctx context.Context, red *symeig.Tridiag, vals []float64, q int, progress func(done, total int)) ([]float64, *mat.Dense, error) {
	q = min(q, len(vals))
	s, err := red.VectorsProgress(ctx, vals[:q], progress)
	return vals[:q], s, err
}

// ritz returns the q leading Ritz values of the projected matrix t and
// the vectors s of t they belong to (k × q), from a full
// eigendecomposition of t (the fallback when inverse iteration breaks
// down); nil vectors when it fails.
func ritz(t *mat.Dense, q int) ([]float64, *mat.Dense) {
	k, _ := t.Dims()
	sym := symOf(t)
	var es mat.EigenSym
	if !es.Factorize(sym, true) {
		return nil, nil
	}
	asc := es.Values(nil)
	var u mat.Dense
	es.VectorsTo(&u)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return asc[order[a]] > asc[order[b]] })
	s := mat.NewDense(k, q, nil)
	vals := make([]float64, q)
	for j := 0; j < q; j++ {
		vals[j] = asc[order[j]]
		for i := 0; i < k; i++ {
			s.Set(i, j, u.At(i, order[j]))
		}
	}
	return vals, s
}

// mulDense returns a·b through fastmath.MulNN (a row-major product summed
// in registers): the Lanczos basis has up to a few hundred columns and
// the blocks a few dozen, shapes where gonum's gemm reloads its output
// once per inner index.
func mulDense(a, b *mat.Dense) *mat.Dense {
	c, _ := mulDenseContext(context.Background(), a, b, nil)
	return c
}

// mulWork bounds the multiply-adds of one block of rows of
// mulDenseContext (about 2²⁶: tens of milliseconds on all cores).
const mulWork = 1 << 26

// mulDenseContext is mulDense a block of rows at a time, returning
// ctx.Err() between blocks once ctx is done: the Ritz vectors of a large
// basis are up to 10¹¹ multiply-adds (n = 10,000, 5,000 × 2,750). Every
// value of MulNN is the same sum whatever the blocking. progress (may be
// nil) receives the rows done after each block.
func mulDenseContext(ctx context.Context, a, b *mat.Dense, progress func(done, total int)) (*mat.Dense, error) {
	m, k := a.Dims()
	_, n := b.Dims()
	c := mat.NewDense(m, max(n, 1), nil)
	ar, br, cr := a.RawMatrix(), b.RawMatrix(), c.RawMatrix()
	rows := max(64, mulWork/max(k*n, 1))
	for i0 := 0; i0 < m; i0 += rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		i1 := min(i0+rows, m)
		fastmath.MulNNPar(cr.Data[i0*cr.Stride:], cr.Stride, ar.Data[i0*ar.Stride:], ar.Stride, br.Data, br.Stride, i1-i0, n, k)
		if progress != nil {
			progress(i1, m)
		}
	}
	return c, nil
}

// mulTN returns pᵀ·v (b × k) for p (n × b) and v (n × k) as a row-major
// slice: p is transposed into pt (at least b·n values), so that the sum
// over the n rows is fastmath.MulNN's inner loop. The sum goes in slices
// of tnRows rows, each a product of its own added to the result, so that
// a slice of v (tnRows × k) is read once from memory and stays cached
// while all b rows of pᵀ pass over it; as one product over n = 7,000 rows
// v was streamed once per four rows of pᵀ (BenchmarkMulTN, n = 7,000,
// b = 28, k = 300: 8.4–9.1 → 4.8–5.1 ms). The columns of the result are split
// between the cores. Once ctx is done it returns ctx.Err(): each core
// looks at it every tnCheck slices (at n = 4,000, b = 150 and k = 2,000,
// as 600 pairs reach, the product is over a second of one core's work).
func mulTN(ctx context.Context, p, v *mat.Dense, pt []float64) ([]float64, error) {
	n, b := p.Dims()
	_, k := v.Dims()
	pr, vr := p.RawMatrix(), v.RawMatrix()
	for i := 0; i < n; i++ {
		for c, x := range pr.Data[i*pr.Stride : i*pr.Stride+b] {
			pt[c*n+i] = x
		}
	}
	h := make([]float64, b*k)
	parallel.ForRanges((k+7)/8, 4, func(lo, hi int) {
		c0, c1 := 8*lo, min(8*hi, k)
		w := c1 - c0
		part := make([]float64, b*w)
		for l0 := 0; l0 < n; l0 += tnRows {
			if (l0/tnRows)%tnCheck == 0 && ctx.Err() != nil {
				return
			}
			l1 := min(l0+tnRows, n)
			fastmath.MulNN(part, w, pt[l0:], n, vr.Data[l0*vr.Stride+c0:], vr.Stride, b, w, l1-l0)
			for c := 0; c < b; c++ {
				floats.Add(h[c*k+c0:c*k+c1], part[c*w:c*w+w])
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return h, nil
}

// tnRows is the slice of rows of mulTN's inner sum; tnCheck how many
// slices a core multiplies between two looks at ctx.
const (
	tnRows  = 128
	tnCheck = 4
)

// project sets p = p − V(Vᵀp), with pt (b·n values) as scratch; ctx.Err()
// once ctx is done, p then partly updated.
func project(ctx context.Context, p, v *mat.Dense, pt []float64) error {
	h, err := mulTN(ctx, p, v, pt) // (Vᵀp)ᵀ, b × k
	if err != nil {
		return err
	}
	return subtractSpan(ctx, p, v, h)
}

// subtractSpan sets p = p − V·hᵀ for the b × k row-major h (hᵀ = Vᵀp
// makes it project's subtraction); ctx.Err() once ctx is done.
func subtractSpan(ctx context.Context, p, v *mat.Dense, h []float64) error {
	n, b := p.Dims()
	_, k := v.Dims()
	ht := mat.NewDense(k, b, nil)
	for c := 0; c < b; c++ {
		for j := 0; j < k; j++ {
			ht.Set(j, c, h[c*k+j])
		}
	}
	vh, err := mulDenseContext(ctx, v, ht, nil)
	if err != nil {
		return err
	}
	pr, vr := p.RawMatrix(), vh.RawMatrix()
	for i := 0; i < n; i++ {
		row := pr.Data[i*pr.Stride : i*pr.Stride+b]
		for c, x := range vr.Data[i*vr.Stride : i*vr.Stride+b] {
			row[c] -= x
		}
	}
	return nil
}

// orthonormalise replaces the columns of p by an orthonormal basis of their
// span, with pt (b·n values) as scratch. It uses Cholesky QR (G = pᵀp =
// RᵀR, p ← pR⁻¹: two products that run on both cores) when the block is
// well conditioned, as the Krylov blocks nearly always are after their
// projection (at n = 7,000, b = 28: 6.6 ms → about 1 ms a block against
// Householder QR); otherwise, and when G is not numerically positive
// definite, Householder QR, where columns that were numerically dependent
// become other unit vectors orthogonal to the rest. Once ctx is done it
// returns ctx.Err(), p then partly updated.
func orthonormalise(ctx context.Context, p *mat.Dense, pt []float64) error {
	ok, err := cholQR(ctx, p, pt)
	if err != nil {
		return err
	}
	if !ok {
		householderQR(p)
	}
	return nil
}

// cholQRMinRatio is the smallest ratio of R's least to largest diagonal
// entry for which Cholesky QR is trusted: it loses orthogonality as
// ε·cond(p)², and the ratio bounds cond(p) from below, so 1e-5 keeps the
// loss near 1e-6 even for a block as badly conditioned as the ratio allows
// (the second pass of blockLanczos, on a block that is then orthonormal
// to that order, restores it to rounding).
const cholQRMinRatio = 1e-5

// cholQR orthonormalises p by Cholesky QR and reports whether it could
// (ctx.Err() once ctx is done).
func cholQR(ctx context.Context, p *mat.Dense, pt []float64) (bool, error) {
	n, b := p.Dims()
	g, err := mulTN(ctx, p, p, pt) // b × b
	if err != nil {
		return false, err
	}
	sym := mat.NewSymDense(b, g)
	var ch mat.Cholesky
	if !ch.Factorize(sym) {
		return false, nil
	}
	var r mat.TriDense
	ch.UTo(&r)
	lo, hi := math.Inf(1), 0.0
	for i := 0; i < b; i++ {
		d := r.At(i, i)
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	if !(lo > cholQRMinRatio*hi) {
		return false, nil
	}
	var rinv mat.TriDense
	if err := rinv.InverseTri(&r); err != nil {
		return false, nil
	}
	q, err := mulDenseContext(ctx, p, mat.DenseCopyOf(&rinv), nil)
	if err != nil {
		return false, err
	}
	pr, qr := p.RawMatrix(), q.RawMatrix()
	for i := 0; i < n; i++ {
		copy(pr.Data[i*pr.Stride:i*pr.Stride+b], qr.Data[i*qr.Stride:i*qr.Stride+b])
	}
	return true, nil
}

// householderQR replaces the columns of p by the Q of its Householder QR.
func householderQR(p *mat.Dense) {
	_, b := p.Dims()
	raw := p.RawMatrix()
	tau := make([]float64, b)
	work := make([]float64, 1)
	lapack64.Geqrf(raw, tau, work, -1)
	lw := int(work[0])
	lapack64.Orgqr(raw, tau, work, -1)
	work = make([]float64, max(lw, int(work[0]), b))
	lapack64.Geqrf(raw, tau, work, len(work))
	lapack64.Orgqr(raw, tau, work, len(work))
}

// paddedStride is the row stride of kernel PCA's n × n matrix and of the
// Lanczos pass's vectors: n rounded up to a multiple of four.
func paddedStride(n int) int { return (n + 3) &^ 3 }

// symMulBlock sets dst = a·v for the symmetric n × n matrix a, of which
// only the upper triangle (j ≥ i) is read, and the n × b block v: one pass
// over the triangle, each element read once and used twice. vt (b × n)
// receives vᵀ and acc (2·b·s values: two accumulators of b rows of stride
// s ≥ n) is scratch. Row i's strictly
// upper part gives, four columns of v at a time and two rows at a time
// (fastmath.DotAxpy4x2, which reads vᵀ and the accumulator once for both
// rows; AVX2 fused multiply-adds where the machine has them), the dot products
// Σ_{j>i} a_ij v_jc of (av)_i and the updates a_ij v_ic of the rows j > i,
// which collect in a per-goroutine accumulator and are added at the end.
// Reading half the matrix halves the memory traffic of what is a
// memory-bound pass (at n = 7,000 the triangle is 196 MB). Two goroutines
// take rows split so that each holds half the triangle; they stop every
// 256 rows when ctx is done, and symMulBlock then returns ctx.Err().
func symMulBlock(ctx context.Context, dst, a, v, vt *mat.Dense, acc []float64) error {
	n, b := v.Dims()
	vt.Copy(v.T())
	ar, vr, dr := a.RawMatrix(), vt.RawMatrix(), dst.RawMatrix()
	vrow := func(c, from int) []float64 { return vr.Data[c*vr.Stride+from : c*vr.Stride+n] }
	zs := len(acc) / (2 * b) // the accumulators' row stride
	accs := [2][]float64{acc[:b*zs], acc[b*zs : 2*b*zs]}
	var wg sync.WaitGroup
	for g, r := range upperHalves(n) {
		z := accs[g]
		clear(z)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			zrow := func(c, from int) []float64 { return z[c*zs+from : c*zs+n] }
			i := lo
			// Rows in pairs (i, i+1): DotAxpy4x2 reads the block and the
			// accumulator once for both.
			for ; i+1 < hi; i += 2 {
				if (i-lo)%256 == 0 && ctx.Err() != nil {
					return
				}
				j := i + 1
				aii, ajj, aij := ar.Data[i*ar.Stride+i], ar.Data[j*ar.Stride+j], ar.Data[i*ar.Stride+j]
				x0 := ar.Data[i*ar.Stride+j+1 : i*ar.Stride+n]
				x1 := ar.Data[j*ar.Stride+j+1 : j*ar.Stride+n]
				outI := dr.Data[i*dr.Stride : i*dr.Stride+b]
				outJ := dr.Data[j*dr.Stride : j*dr.Stride+b]
				c := 0
				for ; c+4 <= b; c += 4 {
					y := [4][]float64{vrow(c, j+1), vrow(c+1, j+1), vrow(c+2, j+1), vrow(c+3, j+1)}
					zz := [4][]float64{zrow(c, j+1), zrow(c+1, j+1), zrow(c+2, j+1), zrow(c+3, j+1)}
					var coef [8]float64
					for k := 0; k < 4; k++ {
						coef[k], coef[4+k] = vr.Data[(c+k)*vr.Stride+i], vr.Data[(c+k)*vr.Stride+j]
					}
					sum := fastmath.DotAxpy4x2(x0, x1, &y, &zz, &coef)
					for k := 0; k < 4; k++ {
						vi, vj := coef[k], coef[4+k]
						outI[c+k] = sum[k] + aii*vi + aij*vj
						outJ[c+k] = sum[4+k] + ajj*vj
						z[(c+k)*zs+j] += aij * vi
					}
				}
				for ; c < b; c++ {
					vi, vj := vr.Data[c*vr.Stride+i], vr.Data[c*vr.Stride+j]
					outI[c] = floats.Dot(x0, vrow(c, j+1)) + aii*vi + aij*vj
					outJ[c] = floats.Dot(x1, vrow(c, j+1)) + ajj*vj
					floats.AddScaled(zrow(c, j+1), vi, x0)
					floats.AddScaled(zrow(c, j+1), vj, x1)
					z[c*zs+j] += aij * vi
				}
			}
			if i < hi { // the last row of an odd range: one row a pass
				aii := ar.Data[i*ar.Stride+i]
				row := ar.Data[i*ar.Stride+i+1 : i*ar.Stride+n]
				out := dr.Data[i*dr.Stride : i*dr.Stride+b]
				for c := range out {
					vi := vr.Data[c*vr.Stride+i]
					out[c] = floats.Dot(row, vrow(c, i+1)) + aii*vi
					floats.AddScaled(zrow(c, i+1), vi, row)
				}
			}
		}(r[0], r[1])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		out := dr.Data[i*dr.Stride : i*dr.Stride+b]
		for c := range out {
			out[c] += accs[0][c*zs+i] + accs[1][c*zs+i]
		}
	}
	return nil
}

// symOf copies the upper triangle of the square matrix a into a SymDense.
func symOf(a *mat.Dense) *mat.SymDense {
	k, _ := a.Dims()
	sym := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		copy(sym.RawSymmetric().Data[i*k+i:i*k+k], a.RawRowView(i)[i:k])
	}
	return sym
}
