package cpd

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// parallelSize is the tensor size above which a single decomposition splits
// its own work over the cores (the last mode's MTTKRP and the Gram matrices
// of the svd initialisation; gonum's Dgemm parallelises the rest itself).
const parallelSize = 1 << 16

// smallSize is the tensor size up to which the two products of a sweep are
// plain loops rather than Gemm calls: for the small sample tensors of the
// tensor detectors (12×10×8, 125×45) the products are a few thousand
// multiply-adds, and gonum's Dgemm spends comparable time choosing its
// blocking and parallel split.
const smallSize = 1 << 13

// smallRank is the rank up to which the R×R normal equations are solved by
// the inline Cholesky of cholSmall instead of LAPACK potrf/potrs (same
// algorithm, without the call overhead that dominates at R = 1 … 4).
const smallRank = 8

// workspace holds every buffer CP-ALS needs for one shape and rank, so that
// the iterations allocate nothing and a batch worker reuses it from tensor
// to tensor.
//
// Layout: factors are row-major I_n × R; the MTTKRP results, the
// Khatri–Rao products and T are kept transposed (R rows), so that every
// large product is a Gemm whose inner loop is a long dot product.
type workspace struct {
	shape []int
	N, R  int
	P, L  int // P = I_0⋯I_{N−2}, L = I_{N−1}
	par   bool
	// Small-problem paths (same algorithm, less overhead); each is set by
	// newWorkspace and only tests turn them off, to compare with the
	// general path.
	small     bool // P·L ≤ smallSize: the sweep products by plain loops
	smallChol bool // R ≤ smallRank: normal equations by cholSmall
	smallEig  bool // tiny Grams in the svd init by smallEigen

	factors [][]float64 // factors[n] is I_n × R, row-major, unit columns
	grams   [][]float64 // grams[n] = A_nᵀA_n, R × R
	lambda  []float64

	xt       []float64 // L × P: the last unfolding X_(N−1)
	at       []float64 // R × L: A_{N−1}ᵀ
	tt       []float64 // R × P: (X reshaped P×L · A_{N−1})ᵀ
	krt      []float64 // R × P: KhatriRao(A_0, …, A_{N−2})ᵀ
	klt, kat []float64 // R × Lb, R × Ra: Khatri–Rao products around mode n
	mt, sol  []float64 // R × max I_n: MTTKRP of the current mode, solve buffer
	v, chol  []float64 // R × R
	mats     []blas64.General

	eig eigScratch
}

// eigScratch is the scratch of one svd initialisation or pseudo-inverse.
type eigScratch struct {
	gram, w, work, unf, vt []float64
	// subspace iteration (eig.go)
	q, z, h, hw, tau, tmp, qrwork, hwork []float64
	idx                                  []int
	// inverse iteration on tiny Grams (eigsmall.go)
	full, lu, x, e []float64
	piv            []int
}

func (s *eigScratch) ensure(n int) {
	if len(s.w) >= n && cap(s.gram) >= n*n && s.work != nil {
		return
	}
	s.w = make([]float64, n)
	work := []float64{0}
	lapack64.Syev(lapack.EVCompute, blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: max(1, n), Data: make([]float64, n*n)}, s.w, work, -1)
	s.work = make([]float64, int(work[0]))
	s.gram = make([]float64, n*n)
}

func newWorkspace(shape []int, R int, par bool) *workspace {
	N := len(shape)
	w := &workspace{shape: append([]int(nil), shape...), N: N, R: R}
	w.P = 1
	for _, s := range shape[:N-1] {
		w.P *= s
	}
	w.L = shape[N-1]
	w.par = par && runtime.GOMAXPROCS(0) > 1 && w.P*w.L >= parallelSize
	w.small = w.P*w.L <= smallSize
	w.smallChol = R <= smallRank
	w.smallEig = true
	maxI := 0
	w.factors = make([][]float64, N)
	w.grams = make([][]float64, N)
	for n, s := range shape {
		w.factors[n] = make([]float64, s*R)
		w.grams[n] = make([]float64, R*R)
		maxI = max(maxI, s)
	}
	w.lambda = make([]float64, R)
	w.xt = make([]float64, w.P*w.L)
	w.at = make([]float64, R*w.L)
	w.tt = make([]float64, R*w.P)
	w.krt = make([]float64, R*w.P)
	// Largest Khatri–Rao before mode n (n ≤ N−2): the product of the first
	// N−2 sides; largest after mode n within the first N−1 modes: sides 1…N−2.
	lb, ra := 1, 1
	for j := 0; j < N-2; j++ {
		lb *= shape[j]
	}
	for j := 1; j < N-1; j++ {
		ra *= shape[j]
	}
	w.klt = make([]float64, lb*R)
	w.kat = make([]float64, ra*R)
	w.mt = make([]float64, maxI*R)
	w.sol = make([]float64, maxI*R)
	w.v = make([]float64, R*R)
	w.chol = make([]float64, R*R)
	w.mats = make([]blas64.General, 0, N)
	return w
}

func (w *workspace) factor(n int) blas64.General {
	return blas64.General{Rows: w.shape[n], Cols: w.R, Stride: w.R, Data: w.factors[n]}
}

// decompose runs CP-ALS on the row-major data of a tensor of w's shape.
func (w *workspace) decompose(ctx context.Context, data []float64, cfg Config, rng *rand.Rand) (Kruskal, error) {
	N, R, P, L := w.N, w.R, w.P, w.L
	normX := norm2(data)
	e := 0 // the exponent of the scaling below, 0 for none
	if math.IsNaN(normX) || math.IsInf(normX, 0) {
		// Finite entries whose norm passes float64's range (twelve of
		// 1e308) are scaled by the largest one's exponent instead.
		var m float64
		for _, v := range data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Kruskal{}, ErrNonFinite
			}
			m = max(m, math.Abs(v))
		}
		_, e = math.Frexp(m)
	}
	if normX == 0 {
		clear(w.lambda)
		return finish(w.lambda, w.factors, w.shape, R), nil
	}
	// A tensor whose norm is far from 1 is decomposed as X/2^e (an exact
	// scaling, which CP commutes with: the weights are multiplied back), so
	// that Gram matrices and singular values of tensors measured in units
	// of 1e±75 and beyond neither overflow nor underflow. Tensors of
	// ordinary size are decomposed as they are, bit for bit.
	unit := 0
	if e == 0 {
		if _, ne := math.Frexp(normX); ne > 64 || ne < -64 {
			e = ne
		}
	}
	if e != 0 {
		unit = e
		scaled := make([]float64, len(data))
		for i, v := range data {
			scaled[i] = math.Ldexp(v, -e)
		}
		if math.IsInf(normX, 0) {
			normX = norm2(scaled)
		} else {
			normX = math.Ldexp(normX, -e) // exact
		}
		data = scaled
	}
	x := blas64.General{Rows: P, Cols: L, Stride: L, Data: data}
	xt := blas64.General{Rows: L, Cols: P, Stride: P, Data: w.xt}
	transpose(xt, x)

	// Mode 0 is never initialised: the first update of a sweep (mode 0)
	// depends only on the factors of modes 1 … N−1.
	switch cfg.Init {
	case SVD:
		if err := w.svdInitAll(data); err != nil {
			return Kruskal{}, err
		}
	case Random:
		for n := 1; n < N; n++ {
			for i := range w.factors[n] {
				w.factors[n][i] = rng.Float64()
			}
		}
	}
	for n := 1; n < N; n++ {
		w.normalise(n)
	}
	norm2 := normX * normX
	var prev, relErr float64
	var trace []float64
	converged := false
	it := 0
	for it < cfg.MaxIter {
		if err := ctx.Err(); err != nil {
			return Kruskal{}, err
		}
		// Tᵀ = A_{N−1}ᵀ · (X as P×L)ᵀ: shared by the updates of modes
		// 0 … N−2, since A_{N−1} changes only at the end of the sweep.
		if w.small {
			w.tSmall()
		} else {
			at := blas64.General{Rows: R, Cols: L, Stride: L, Data: w.at}
			transpose(at, w.factor(N-1))
			blas64.Gemm(blas.NoTrans, blas.Trans, 1, at, x, 0, blas64.General{Rows: R, Cols: P, Stride: P, Data: w.tt})
		}
		for n := 0; n < N-1; n++ {
			w.mttkrpFromT(n)
			w.update(n, cfg.Ridge)
		}
		// Last mode: Mᵀ = KR(A_0 … A_{N−2})ᵀ · X_(N−1)ᵀ.
		w.mats = w.mats[:0]
		for n := 0; n < N-1; n++ {
			w.mats = append(w.mats, w.factor(n))
		}
		krT(w.krt, P, w.mats)
		w.mttkrpLast(xt)
		w.update(N-1, cfg.Ridge)
		it++

		// Relative error in tensorly's cheap form:
		// ‖X − X̂‖² = ‖X‖² + λᵀ(⊛_n A_nᵀA_n)λ − 2 Σ_r λ_r ⟨M[:,r], a_r^(N−1)⟩.
		fit := 0.0
		for r := range R {
			for s := range R {
				p := w.lambda[r] * w.lambda[s]
				for n := range N {
					p *= w.grams[n][r*R+s]
				}
				fit += p
			}
		}
		ip := 0.0
		a := w.factors[N-1]
		for r := range R {
			s := 0.0
			mr := w.mt[r*L : (r+1)*L]
			for i, m := range mr {
				s += m * a[i*R+r]
			}
			ip += w.lambda[r] * s
		}
		relErr = math.Sqrt(math.Abs(norm2+fit-2*ip)) / normX
		if cfg.Trace {
			trace = append(trace, relErr)
		}
		if cfg.Progress != nil {
			cfg.Progress("cp-als", it, cfg.MaxIter)
		}
		if it >= 2 && math.Abs(prev-relErr) < cfg.Tol {
			converged = true
			break
		}
		prev = relErr
	}
	if unit != 0 {
		for r := range w.lambda {
			// A weight past float64's range (the tensor's norm
			// passes it) saturates: the tensor stays finite and as
			// far from every other as float64 can say.
			w.lambda[r] = min(math.Ldexp(w.lambda[r], unit), math.MaxFloat64)
		}
	}
	k := finish(w.lambda, w.factors, w.shape, R)
	k.Iter, k.RelErr, k.Converged, k.Trace = it, relErr, converged, trace
	return k, nil
}

// transpose writes aᵀ into dst (a.Cols × a.Rows), in cache-sized tiles.
func transpose(dst, a blas64.General) {
	const tile = 32
	for i0 := 0; i0 < a.Rows; i0 += tile {
		i1 := min(a.Rows, i0+tile)
		for j0 := 0; j0 < a.Cols; j0 += tile {
			j1 := min(a.Cols, j0+tile)
			for j := j0; j < j1; j++ {
				d := dst.Data[j*dst.Stride:]
				for i := i0; i < i1; i++ {
					d[i] = a.Data[i*a.Stride+j]
				}
			}
		}
	}
}

// krT writes the transposed Khatri–Rao product of mats (first varying
// slowest) into dst: row r (stride cols) is the Kronecker product of the
// r-th columns, a_r^(0) ⊗ a_r^(1) ⊗ ….
func krT(dst []float64, cols int, mats []blas64.General) {
	R := mats[0].Cols
	for r := range R {
		row := dst[r*cols : (r+1)*cols]
		m := mats[0]
		cur := m.Rows
		for i := range cur {
			row[i] = m.Data[i*m.Stride+r]
		}
		for _, m := range mats[1:] {
			// Expand in place from the back: entry q becomes the block
			// q·I … q·I+I−1, which never overlaps an unread entry q' < q.
			I := m.Rows
			for q := cur - 1; q >= 0; q-- {
				v := row[q]
				blk := row[q*I : (q+1)*I]
				for i := range blk {
					blk[i] = v * m.Data[i*m.Stride+r]
				}
			}
			cur *= I
		}
	}
}

// mttkrpFromT writes Mᵀ = (X_(n) · KR(A_j, j ≠ n))ᵀ for n ≤ N−2 into w.mt,
// using T = (X as P×L) · A_{N−1}: with T seen as Lb × I_n × Ra × R,
// M[i,r] = Σ_{l,k} KL[l,r] · T[l,i,k,r] · KA[k,r].
func (w *workspace) mttkrpFromT(n int) {
	R, P := w.R, w.P
	In := w.shape[n]
	lb, ra := 1, 1
	for j := 0; j < n; j++ {
		lb *= w.shape[j]
	}
	for j := n + 1; j < w.N-1; j++ {
		ra *= w.shape[j]
	}
	if n > 0 {
		w.mats = append(w.mats[:0], w.factorsRange(0, n)...)
		krT(w.klt[:lb*R], lb, w.mats)
	}
	if n+1 < w.N-1 {
		w.mats = append(w.mats[:0], w.factorsRange(n+1, w.N-1)...)
		krT(w.kat[:ra*R], ra, w.mats)
	}
	mt := w.mt[:R*In]
	for r := range R {
		t := w.tt[r*P : (r+1)*P]
		m := mt[r*In : (r+1)*In]
		switch {
		case lb == 1 && ra == 1:
			copy(m, t)
		case ra == 1:
			clear(m)
			kl := w.klt[r*lb : (r+1)*lb]
			for l, c := range kl {
				floats.AddScaled(m, c, t[l*In:(l+1)*In])
			}
		default:
			clear(m)
			ka := w.kat[r*ra : (r+1)*ra]
			for l := range lb {
				c := 1.0
				if lb > 1 {
					c = w.klt[r*lb+l]
				}
				base := l * In * ra
				for i := range m {
					m[i] += c * floats.Dot(t[base+i*ra:base+(i+1)*ra], ka)
				}
			}
		}
	}
}

// tSmall writes Tᵀ = A_{N−1}ᵀ · (X as P×L)ᵀ into w.tt without a Gemm call
// (the small-tensor form of the product in decompose): row r of Tᵀ is
// Σ_l A_{N−1}[l, r] · X_(N−1)[l, :], L axpys of length P on the
// materialised last unfolding, summed in the order l = 0 … L−1 as the dot
// products of the Gemm are.
func (w *workspace) tSmall() {
	R, P, L := w.R, w.P, w.L
	a := w.factors[w.N-1] // L × R, row-major
	tt := w.tt[:R*P]
	clear(tt)
	for l := range L {
		xl := w.xt[l*P : (l+1)*P]
		for r := range R {
			floats.AddScaled(tt[r*P:(r+1)*P], a[l*R+r], xl)
		}
	}
}

func (w *workspace) factorsRange(lo, hi int) []blas64.General {
	var buf [8]blas64.General
	out := buf[:0]
	for j := lo; j < hi; j++ {
		out = append(out, w.factor(j))
	}
	return out
}

// mttkrpLast writes Mᵀ = KRᵀ · X_(N−1)ᵀ (R × L) into w.mt, splitting the L
// rows of X_(N−1) over the cores for a large tensor (gonum's Dgemm would
// not: the output is only R × L).
func (w *workspace) mttkrpLast(xt blas64.General) {
	R, P, L := w.R, w.P, w.L
	krt := blas64.General{Rows: R, Cols: P, Stride: P, Data: w.krt}
	m := blas64.General{Rows: R, Cols: L, Stride: L, Data: w.mt[:R*L]}
	if w.small {
		// M[r, l] = ⟨KR row r, X_(N−1) row l⟩: R·L dot products of length P.
		for r := range R {
			k := w.krt[r*P : (r+1)*P]
			mr := m.Data[r*L : (r+1)*L]
			for l := range L {
				mr[l] = floats.Dot(k, xt.Data[l*P:(l+1)*P])
			}
		}
		return
	}
	workers := runtime.GOMAXPROCS(0)
	if !w.par || L < 2*workers {
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, krt, xt, 0, m)
		return
	}
	chunk := (L + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < L; lo += chunk {
		hi := min(L, lo+chunk)
		xs := blas64.General{Rows: hi - lo, Cols: P, Stride: P, Data: xt.Data[lo*P : hi*P]}
		ms := blas64.General{Rows: R, Cols: hi - lo, Stride: L, Data: m.Data[lo:]}
		wg.Add(1)
		go func() {
			defer wg.Done()
			blas64.Gemm(blas.NoTrans, blas.Trans, 1, krt, xs, 0, ms)
		}()
	}
	wg.Wait()
}

// update solves V · A_nᵀ = Mᵀ with V = ⊛_{j≠n} A_jᵀA_j + ridge·I (Cholesky,
// falling back to the pseudo-inverse when V is not numerically positive
// definite), then normalises A_n's columns into λ and refreshes its Gram.
// w.mt is left intact (the error of the last mode needs it).
func (w *workspace) update(n int, ridge float64) {
	R := w.R
	In := w.shape[n]
	v := w.v
	for i := range v {
		v[i] = 1
	}
	for j := range w.N {
		if j != n {
			floats.Mul(v, w.grams[j])
		}
	}
	vmax := 0.0
	for r := range R {
		v[r*R+r] += ridge
		vmax = max(vmax, v[r*R+r])
	}
	sol := blas64.General{Rows: R, Cols: In, Stride: In, Data: w.sol[:R*In]}
	copy(sol.Data, w.mt[:R*In])
	copy(w.chol, v)
	var t blas64.Triangular
	var ok bool
	if w.smallChol {
		ok = cholSmall(w.chol, R)
	} else {
		t, ok = lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: R, Stride: R, Data: w.chol})
	}
	if ok {
		// Reject numerically singular systems: a pivot u_rr² at or below
		// R·ε·max diag(V) means V is rank-deficient to working precision.
		for r := range R {
			d := w.chol[r*R+r]
			if d*d <= float64(R)*eps*vmax {
				ok = false
				break
			}
		}
	}
	switch {
	case ok && w.smallChol:
		cholSolveSmall(w.chol, R, sol)
	case ok:
		lapack64.Potrs(t, sol)
	default:
		w.pinvSolve(v, sol)
	}
	transpose(w.factor(n), sol)
	w.normalise(n)
}

const eps = 0x1p-52

// norm2 returns the Euclidean norm of x: the plain sum of squares when it
// neither overflows nor loses the smallest entries to underflow (the usual
// case), else floats.Norm's scaled form. It is NaN or +Inf when x holds a
// non-finite entry.
func norm2(x []float64) float64 {
	var s0, s1 float64
	i := 0
	for ; i+1 < len(x); i += 2 {
		s0 += x[i] * x[i]
		s1 += x[i+1] * x[i+1]
	}
	if i < len(x) {
		s0 += x[i] * x[i]
	}
	s := s0 + s1
	// 0x1p-900 … 0x1p+900 keeps every square representable without
	// overflow and every entry that matters above the subnormal range.
	if s > 0x1p-900 && s < 0x1p+900 {
		return math.Sqrt(s)
	}
	return floats.Norm(x, 2)
}

// cholSmall overwrites the upper triangle of the R×R row-major matrix a
// with the Cholesky factor U (a = UᵀU), as LAPACK's unblocked dpotf2 with
// Uplo = Upper does; it reports false, as potrf does, when a pivot is not
// positive (or NaN). The strict lower triangle is left alone.
func cholSmall(a []float64, R int) bool {
	for j := range R {
		d := a[j*R+j]
		for k := range j {
			u := a[k*R+j]
			d -= u * u
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		a[j*R+j] = d
		inv := 1 / d
		for i := j + 1; i < R; i++ {
			s := a[j*R+i]
			for k := range j {
				s -= a[k*R+j] * a[k*R+i]
			}
			a[j*R+i] = s * inv
		}
	}
	return true
}

// cholSolveSmall overwrites b (R × cols) with (UᵀU)⁻¹ b, U the upper
// Cholesky factor in u (as potrs: Uᵀy = b forward, then Ux = y backward).
func cholSolveSmall(u []float64, R int, b blas64.General) {
	var ibuf [smallRank]float64
	inv := ibuf[:R]
	for j := range R {
		inv[j] = 1 / u[j*R+j]
	}
	d := b.Data
	st := b.Stride
	for c := range b.Cols {
		for j := range R {
			s := d[j*st+c]
			for k := range j {
				s -= u[k*R+j] * d[k*st+c]
			}
			d[j*st+c] = s * inv[j]
		}
		for j := R - 1; j >= 0; j-- {
			s := d[j*st+c]
			for k := j + 1; k < R; k++ {
				s -= u[j*R+k] * d[k*st+c]
			}
			d[j*st+c] = s * inv[j]
		}
	}
}

// pinvSolve overwrites b (R × I) with V⁺ b, V⁺ from the eigendecomposition
// of V, dropping eigenvalues at or below R·ε·max|eigenvalue| (numpy's pinv
// cut-off scaled by R).
func (w *workspace) pinvSolve(v []float64, b blas64.General) {
	R := w.R
	s := &w.eig
	s.ensure(R)
	q := s.gram[:R*R]
	copy(q, v)
	ev := s.w[:R]
	qs := blas64.Symmetric{Uplo: blas.Upper, N: R, Stride: R, Data: q}
	if !lapack64.Syev(lapack.EVCompute, qs, ev, s.work, len(s.work)) {
		// The QR iterations did not converge: a zero update drops the
		// components (λ = 0) rather than producing garbage.
		clear(b.Data)
		return
	}
	cut := float64(R) * eps * max(math.Abs(ev[0]), math.Abs(ev[R-1]))
	tmp := make([]float64, R)
	for i := range b.Cols {
		// tmp = diag(1/e) Qᵀ b[:,i], then b[:,i] = Q tmp.
		for k := range R {
			sum := 0.0
			if ev[k] > cut {
				for r := range R {
					sum += q[r*R+k] * b.Data[r*b.Stride+i]
				}
				sum /= ev[k]
			}
			tmp[k] = sum
		}
		for r := range R {
			sum := 0.0
			for k := range R {
				sum += q[r*R+k] * tmp[k]
			}
			b.Data[r*b.Stride+i] = sum
		}
	}
}

// normalise scales the columns of A_n to unit norm, storing the norms in λ,
// and recomputes the Gram matrix A_nᵀA_n.
func (w *workspace) normalise(n int) {
	R := w.R
	a := w.factors[n]
	In := w.shape[n]
	g := w.grams[n]
	clear(g)
	for i := range In {
		for r, x := range a[i*R : (i+1)*R] {
			g[r*R+r] += x * x
		}
	}
	for r := range R {
		nr := math.Sqrt(g[r*R+r])
		w.lambda[r] = nr
		if nr > 0 && !math.IsInf(nr, 0) {
			inv := 1 / nr
			for i := range In {
				a[i*R+r] *= inv
			}
		}
	}
	clear(g)
	for i := range In {
		ai := a[i*R : (i+1)*R]
		for r, x := range ai {
			if x == 0 {
				continue
			}
			gr := g[r*R : (r+1)*R]
			for s := r; s < R; s++ {
				gr[s] += x * ai[s]
			}
		}
	}
	for r := range R {
		for s := 0; s < r; s++ {
			g[r*R+s] = g[s*R+r]
		}
	}
}

// svdInitAll initialises modes 1 … N−1, concurrently for a large tensor.
func (w *workspace) svdInitAll(data []float64) error {
	if !w.par || w.N < 3 {
		for n := 1; n < w.N; n++ {
			if err := w.svdInit(data, n, &w.eig); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, w.N)
	var wg sync.WaitGroup
	for n := 1; n < w.N; n++ {
		s := &w.eig
		if n > 1 {
			s = &eigScratch{}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[n] = w.svdInit(data, n, s)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// svdInit sets A_n to the R leading left singular vectors of X_(n), from the
// eigenvectors of the smaller of the Gram matrices X_(n)X_(n)ᵀ and
// X_(n)ᵀX_(n). Every Gram is formed with Syrk in its dot-product form
// (NoTrans), which is the fast one in gonum.
func (w *workspace) svdInit(data []float64, n int, s *eigScratch) error {
	R := w.R
	I := w.shape[n]
	C := len(data) / I
	before, after := 1, 1
	for j := range w.N {
		switch {
		case j < n:
			before *= w.shape[j]
		case j > n:
			after *= w.shape[j]
		}
	}
	small := min(I, C)
	s.ensure(small)
	gs := blas64.Symmetric{Uplo: blas.Upper, N: small, Stride: small, Data: s.gram[:small*small]}
	// un is X_(n) (I × C) when it is materialised (last mode: w.xt).
	var un blas64.General
	switch {
	case n == w.N-1:
		un = blas64.General{Rows: I, Cols: C, Stride: C, Data: w.xt}
	case after >= 32 && I <= C:
		// X_(n)X_(n)ᵀ = Σ_l X[l] X[l]ᵀ with X[l] the contiguous I × after slab.
		for l := range before {
			slab := blas64.General{Rows: I, Cols: after, Stride: after, Data: data[l*I*after : (l+1)*I*after]}
			beta := 1.0
			if l == 0 {
				beta = 0
			}
			blas64.Syrk(blas.NoTrans, 1, slab, beta, gs)
		}
	default:
		if len(s.unf) < len(data) {
			s.unf = make([]float64, len(data))
		}
		for l := range before {
			for i := range I {
				copy(s.unf[i*C+l*after:i*C+(l+1)*after], data[(l*I+i)*after:(l*I+i+1)*after])
			}
		}
		un = blas64.General{Rows: I, Cols: C, Stride: C, Data: s.unf[:I*C]}
	}
	if un.Data != nil {
		if I <= C {
			blas64.Syrk(blas.NoTrans, 1, un, 0, gs)
		} else {
			// Gram of the columns, in dot form on the transpose.
			if len(s.vt) < I*C {
				s.vt = make([]float64, I*C)
			}
			ut := blas64.General{Rows: C, Cols: I, Stride: I, Data: s.vt[:I*C]}
			transpose(ut, un)
			blas64.Syrk(blas.NoTrans, 1, ut, 0, gs)
		}
	}
	// out receives the R leading eigenvectors of the Gram matrix, n × R.
	a := w.factors[n]
	out := a
	if I > C {
		if cap(s.vt) < C*R {
			s.vt = make([]float64, C*R)
		}
		// s.vt held the transpose above; it is no longer needed.
		out = s.vt[:C*R]
	}
	done := false
	if b := subspaceBlock(small, R); b > 0 {
		done = s.topEigen(gs, R, b, out)
	} else if w.smallEig && smallEigenOK(small, R) {
		done = s.smallEigen(gs, R, out)
	}
	if !done {
		ev := s.w[:small]
		if !lapack64.Syev(lapack.EVCompute, gs, ev, s.work, len(s.work)) {
			return errSVD
		}
		// Eigenvalues ascend: the leading vectors are the last columns.
		for i := range small {
			for r := range R {
				out[i*R+r] = gs.Data[i*small+small-1-r]
			}
		}
	}
	if I <= C {
		return nil
	}
	// U = X_(n) V (normalised later), V the leading eigenvectors of
	// X_(n)ᵀX_(n) (C × R).
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, un, blas64.General{Rows: C, Cols: R, Stride: R, Data: out}, 0, w.factor(n))
	return nil
}

var errSVD = errorString("cpd: eigendecomposition for svd initialisation did not converge")

type errorString string

func (e errorString) Error() string { return string(e) }
