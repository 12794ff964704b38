package cpd

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/gonum"
)

// Leading eigenvectors of a tiny Gram matrix for the svd initialisation.
//
// The Gram matrices of small sample tensors (12×10×8: 10×10 and 8×8) are
// too small for subspace iteration (subspaceBlock) and were handed to syev,
// whose cost there is mostly the accumulation of every QR rotation into
// all n eigenvectors when only R are wanted. smallEigen instead computes
// the eigenvalues alone (Householder tridiagonal reduction and the
// root-free QR of LAPACK's dsterf, which is syev without vectors) and each of the R leading eigenvectors by inverse iteration
// with the computed eigenvalue as shift (LU with partial pivoting of
// G − θI, Wilkinson's method as in LAPACK's dstein). It accepts a vector
// only when its residual ‖Gx − ρx‖ (ρ the Rayleigh quotient) is at most
// smallEigResid·n·ε·‖G‖, the backward error syev itself guarantees, so
// the vectors agree with syev's to rounding (the perturbation bound
// residual/gap is the same for both). It gives up, and the caller uses
// syev, when a wanted eigenvalue is not separated from its neighbours by
// more than smallEigGap·‖G‖ (a cluster, where syev's choice of basis
// would be as arbitrary) or when the residual test fails.
const (
	smallEigMaxN    = 32
	smallEigGap     = 1e-6
	smallEigResid   = 8
	smallEigMaxIter = 4
)

// smallEigenOK reports whether smallEigen should be tried for k vectors of
// an n×n matrix (it beats syev while the wanted vectors are few).
func smallEigenOK(n, k int) bool { return n <= smallEigMaxN && 2*k <= n }

// smallEigen writes the k leading eigenvectors of the symmetric matrix g
// (upper triangle used; overwritten) into out, row-major n×k, and reports
// whether it succeeded; on false g holds its original upper triangle again
// and out is undefined.
func (s *eigScratch) smallEigen(g blas64.Symmetric, k int, out []float64) bool {
	n := g.N
	if len(s.full) < n*n {
		s.full = make([]float64, n*n)
		s.lu = make([]float64, n*n)
		s.x = make([]float64, 2*n)
		s.piv = make([]int, n)
	}
	full := s.full[:n*n]
	for i := range n {
		for j := i; j < n; j++ {
			v := g.Data[i*g.Stride+j]
			full[i*n+j], full[j*n+i] = v, v
		}
	}
	restore := func() bool {
		for i := range n {
			copy(g.Data[i*g.Stride+i:i*g.Stride+n], full[i*n+i:i*n+n])
		}
		return false
	}
	// Eigenvalues: Householder tridiagonalisation in plain loops (LAPACK's
	// dsytd2 without its per-column BLAS calls, whose overhead dominates at
	// n ≤ 32), then the root-free QR of dsterf, as syev without vectors.
	ev := s.w[:n]
	if len(s.e) < n {
		s.e = make([]float64, n)
	}
	lu := s.lu[:n*n]
	copy(lu, full)
	tridiagonal(lu, n, ev, s.e[:n], s.x[:n])
	if !(gonum.Implementation{}).Dsterf(n, ev, s.e[:n]) {
		return restore()
	}
	nrm := max(math.Abs(ev[0]), math.Abs(ev[n-1]))
	if nrm == 0 {
		return restore()
	}
	for r := range k {
		j := n - 1 - r
		gap := math.Abs(ev[j] - ev[j-1])
		if j+1 < n {
			gap = min(gap, math.Abs(ev[j+1]-ev[j]))
		}
		if gap <= smallEigGap*nrm {
			return restore()
		}
	}
	piv := s.piv[:n]
	x, y := s.x[:n], s.x[n:2*n]
	tolRes := smallEigResid * float64(n) * eps * nrm
	for r := range k {
		theta := ev[n-1-r]
		copy(lu, full)
		for i := range n {
			lu[i*n+i] -= theta
		}
		luSmall(lu, n, piv, eps*nrm)
		// Start from a vector with no special direction, orthogonal to the
		// vectors already found.
		for i := range x {
			x[i] = 1 + float64(i)/float64(n)
		}
		ok := false
		for range smallEigMaxIter {
			orthAgainst(x, out, n, k, r)
			if !normalize(x) {
				break
			}
			copy(y, x)
			luSolveSmall(lu, n, piv, y)
			copy(x, y)
			orthAgainst(x, out, n, k, r)
			if !normalize(x) {
				break
			}
			// Residual with the Rayleigh quotient ρ = xᵀGx.
			rho := 0.0
			for i := range n {
				gi := full[i*n : (i+1)*n]
				s := 0.0
				for j, v := range x {
					s += gi[j] * v
				}
				y[i] = s
				rho += x[i] * s
			}
			res := 0.0
			for i := range n {
				d := y[i] - rho*x[i]
				res += d * d
			}
			if math.Sqrt(res) <= tolRes {
				ok = true
				break
			}
		}
		if !ok {
			return restore()
		}
		for i := range n {
			out[i*k+r] = x[i]
		}
	}
	return true
}

// orthAgainst removes from x (twice, for stability) its components along
// the first r columns of out (n×k, orthonormal columns).
func orthAgainst(x, out []float64, n, k, r int) {
	for range 2 {
		for c := range r {
			d := 0.0
			for i := range n {
				d += out[i*k+c] * x[i]
			}
			for i := range n {
				x[i] -= d * out[i*k+c]
			}
		}
	}
}

// normalize scales x to unit norm; false when x is zero or not finite.
func normalize(x []float64) bool {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return false
	}
	inv := 1 / math.Sqrt(s)
	for i := range x {
		x[i] *= inv
	}
	return true
}

// luSmall factorises the n×n row-major a in place as PA = LU (partial
// pivoting, L unit lower), recording the row swaps in piv. A pivot below
// tiny in magnitude is replaced by ±tiny, as inverse iteration wants (the
// shift is an eigenvalue, so G − θI is singular to working precision).
func luSmall(a []float64, n int, piv []int, tiny float64) {
	for c := range n {
		p, pv := c, math.Abs(a[c*n+c])
		for i := c + 1; i < n; i++ {
			if v := math.Abs(a[i*n+c]); v > pv {
				p, pv = i, v
			}
		}
		piv[c] = p
		if p != c {
			for j := range n {
				a[c*n+j], a[p*n+j] = a[p*n+j], a[c*n+j]
			}
		}
		d := a[c*n+c]
		if math.Abs(d) < tiny {
			if d < 0 {
				d = -tiny
			} else {
				d = tiny
			}
			a[c*n+c] = d
		}
		inv := 1 / d
		for i := c + 1; i < n; i++ {
			l := a[i*n+c] * inv
			a[i*n+c] = l
			if l == 0 {
				continue
			}
			ri, rc := a[i*n+c+1:i*n+n], a[c*n+c+1:c*n+n]
			for j, v := range rc {
				ri[j] -= l * v
			}
		}
	}
}

// luSolveSmall overwrites b with A⁻¹b from luSmall's factors.
func luSolveSmall(a []float64, n int, piv []int, b []float64) {
	for c, p := range piv {
		if p != c {
			b[c], b[p] = b[p], b[c]
		}
	}
	for i := range n {
		s := b[i]
		for j := range i {
			s -= a[i*n+j] * b[j]
		}
		b[i] = s
	}
	for i := n - 1; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < n; j++ {
			s -= a[i*n+j] * b[j]
		}
		b[i] = s / a[i*n+i]
	}
}

// tridiagonal reduces the symmetric n×n row-major a (full storage;
// overwritten) to tridiagonal form Qᵀ a Q by Householder reflections
// (Golub & Van Loan, Alg. 8.3.1), writing the diagonal into d and the
// off-diagonal into e[:n−1]; p is scratch of length n. Q is not formed.
func tridiagonal(a []float64, n int, d, e, p []float64) {
	for k := 0; k < n-2; k++ {
		// v = x − α e_1 for x = a[k+1:, k], α = −sign(x_1)‖x‖, so that
		// H x = α e_1 with H = I − τ v vᵀ, τ = 2/(vᵀv).
		m := n - k - 1
		xn := 0.0
		for i := k + 1; i < n; i++ {
			xn += a[i*n+k] * a[i*n+k]
		}
		d[k] = a[k*n+k]
		if xn == 0 {
			e[k] = 0
			continue
		}
		x1 := a[(k+1)*n+k]
		alpha := -math.Copysign(math.Sqrt(xn), x1)
		e[k] = alpha
		// v overwrites column k below the diagonal; vᵀv = ‖x‖² − 2αx_1 + α².
		a[(k+1)*n+k] = x1 - alpha
		vv := xn - x1*x1 + (x1-alpha)*(x1-alpha)
		tau := 2 / vv
		v := func(i int) float64 { return a[(k+1+i)*n+k] }
		// p = τ A22 v, w = p − (τ/2)(pᵀv) v, A22 −= v wᵀ + w vᵀ.
		pv := 0.0
		for i := range m {
			row := a[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			s := 0.0
			for j, aij := range row {
				s += aij * v(j)
			}
			p[i] = tau * s
			pv += p[i] * v(i)
		}
		c := 0.5 * tau * pv
		for i := range m {
			p[i] -= c * v(i)
		}
		for i := range m {
			vi, wi := v(i), p[i]
			row := a[(k+1+i)*n+k+1 : (k+1+i)*n+n]
			for j := range row {
				row[j] -= vi*p[j] + wi*v(j)
			}
		}
	}
	if n >= 2 {
		d[n-2] = a[(n-2)*n+n-2]
		e[n-2] = a[(n-2)*n+n-1]
	}
	d[n-1] = a[(n-1)*n+n-1]
}
