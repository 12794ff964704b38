package randfeat

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/kernel"
)

// The Cholesky form of the Nyström map (NewNystromCholesky): K_mm = PᵀRᵀRP
// by a pivoted Cholesky factorisation with a cut-off, and
//
//	z(x) = R⁻ᵀ k_r(x),
//
// k_r(x) the kernel values against the r landmarks it keeps, in pivot
// order. Then ⟨z(x), z(y)⟩ = k_r(x)ᵀ K_rr⁻¹ k_r(y), which equals
// k_m(x)ᵀ K_mm⁺ k_m(y) when the dropped landmarks lie in the kept ones'
// span (duplicates, exactly; otherwise up to the cut-off). It costs
// about m³/3 flops where the eigendecomposition costs some 10 m³ and
// more memory traffic, and needs no inverse: the products with R⁻¹ and
// R⁻ᵀ are triangular solves.

// cholPanel is the number of pivots the factorisation takes before it
// updates the rest of the matrix with one product (fastmath.MulNN).
const cholPanel = 64

// cholRows is the rows of the trailing matrix one worker updates at a time.
const cholRows = 32

// NystromCholeskyBytes bounds the bytes NewNystromCholesky allocates for m
// dense landmarks of d columns: their copy and the kept ones' copy, the
// m × m Gram matrix (factored in place), R (at most m × m), the panel's
// transpose and every worker's block of the trailing update.
func NystromCholeskyBytes(m, d int) int64 {
	M := int64(m)
	w := int64(runtime.GOMAXPROCS(0))
	return 8*(2*M*int64(d)+2*M*M+cholPanel*M+w*cholRows*M) + 16*M
}

// NewNystromCholesky builds the Nyström map of k on the rows of landmarks
// (a dense copy is kept) from a pivoted Cholesky factorisation of their
// Gram matrix: at each step the landmark with the largest remaining
// diagonal (Schur complement) is taken, and the factorisation stops when
// that is at most m·2⁻⁵²·max_i k(l_i, l_i) (the tolerance of LAPACK's
// dpstrf and of NumPy's matrix_rank). The map keeps the r landmarks
// taken, in the order taken, and has dimension r (Dim and Rank). It
// returns ctx.Err() once ctx is done (between the blocks of the Gram
// matrix and the panels of the factorisation), or an error if there are
// no landmarks, the Gram matrix is not finite or its diagonal has no
// positive entry.
func NewNystromCholesky(ctx context.Context, k kernel.Kernel, landmarks mat.Matrix) (*Nystrom, error) {
	L := mat.DenseCopyOf(landmarks)
	m, d := L.Dims()
	if m == 0 {
		return nil, errors.New("randfeat: Nystrom needs at least one landmark")
	}
	var K mat.SymDense
	if err := kernel.GramProgress(ctx, &K, k, L, nil); err != nil {
		return nil, err
	}
	raw := K.RawSymmetric()
	a, ld := raw.Data, raw.Stride
	top := 0.0
	for i := 0; i < m; i++ {
		for j, v := range a[i*ld+i : i*ld+m] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("randfeat: Nystrom landmark kernel matrix has a non-finite entry at (%d, %d)", i, i+j)
			}
		}
		top = max(top, a[i*ld+i])
	}
	if !(top > 0) {
		return nil, errors.New("randfeat: Nystrom landmark kernel matrix has no positive diagonal entry")
	}
	perm, r, err := pivotedCholesky(ctx, a, ld, m, float64(m)*0x1p-52*top)
	if err != nil {
		return nil, err
	}
	R := mat.NewDense(r, r, nil)
	kept := mat.NewDense(r, d, nil)
	for i := 0; i < r; i++ {
		copy(R.RawRowView(i)[i:], a[i*ld+i:i*ld+r])
		copy(kept.RawRowView(i), L.RawRowView(perm[i]))
	}
	return &Nystrom{K: k, Landmarks: kept, Factor: R, rank: r}, nil
}

// RestoreNystromCholesky rebuilds a map of NewNystromCholesky from what a
// saved model holds: its kept landmarks (r × d, in their order; copied)
// and R (r × r, upper triangular). It returns an error when the shapes
// disagree, an entry is not finite, R has a nonzero entry below its
// diagonal or a diagonal entry that is not positive; it does not check
// that R belongs to the landmarks.
func RestoreNystromCholesky(k kernel.Kernel, landmarks mat.Matrix, factor *mat.Dense) (*Nystrom, error) {
	L := mat.DenseCopyOf(landmarks)
	m, _ := L.Dims()
	if r, c := factor.Dims(); m == 0 || r != m || c != m {
		return nil, fmt.Errorf("randfeat: Nystrom factor of %d × %d for %d landmarks", r, c, m)
	}
	for i := 0; i < m; i++ {
		row := factor.RawRowView(i)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) || (j < i && v != 0) || (j == i && !(v > 0)) {
				return nil, fmt.Errorf("randfeat: Nystrom factor has an invalid entry at (%d, %d)", i, j)
			}
		}
	}
	return &Nystrom{K: k, Landmarks: L, Factor: mat.DenseCopyOf(factor), rank: m}, nil
}

// pivotedCholesky factors the symmetric n × n matrix whose upper triangle
// a holds (row-major, stride ld) as PᵀRᵀRP, R upper triangular, with
// pivoting on the largest remaining diagonal entry, and stops before the
// first pivot that is not above tol. On return rows 0…rank−1 of a hold R
// on and right of the diagonal, for the rows and columns in the order
// perm (perm[i] is the original index of position i). The panels of
// cholPanel pivots are LAPACK's dpstrf (upper) in row-major storage: in a
// panel each row of R is the row of the trailing matrix less the panel's
// earlier rows, and the diagonal's updates are kept aside; after the
// panel one product updates the trailing matrix's upper triangle, blocks
// of rows on every core, each value the same sum whatever the split.
func pivotedCholesky(ctx context.Context, a []float64, ld, n int, tol float64) (perm []int, rank int, err error) {
	perm = make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	dot := make([]float64, n) // the panel's updates of the diagonal
	var pt []float64
	for k0 := 0; k0 < n; k0 += cholPanel {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		kb := min(cholPanel, n-k0)
		clear(dot[k0:])
		for j := k0; j < k0+kb; j++ {
			piv, best := j, a[j*ld+j]-dot[j]
			for i := j + 1; i < n; i++ {
				if v := a[i*ld+i] - dot[i]; v > best {
					piv, best = i, v
				}
			}
			if !(best > tol) {
				return perm, j, nil
			}
			if piv != j {
				swapSym(a, ld, n, j, piv)
				dot[j], dot[piv] = dot[piv], dot[j]
				perm[j], perm[piv] = perm[piv], perm[j]
			}
			rj := a[j*ld+j+1 : j*ld+n]
			for p := k0; p < j; p++ {
				if v := a[p*ld+j]; v != 0 {
					floats.AddScaled(rj, -v, a[p*ld+j+1:p*ld+n])
				}
			}
			ajj := math.Sqrt(best)
			a[j*ld+j] = ajj
			floats.Scale(1/ajj, rj)
			for i, v := range rj {
				dot[j+1+i] += v * v
			}
		}
		j1 := k0 + kb
		n2 := n - j1
		if n2 == 0 {
			break
		}
		// A22 −= PᵀP, P = a[k0:j1, j1:n] (kb × n2), its upper triangle by
		// blocks of rows: tmp = Pᵀ[rows] · P[:, from the block's diagonal].
		if cap(pt) < n2*kb {
			pt = make([]float64, n2*kb)
		}
		pt = pt[:n2*kb]
		for p := 0; p < kb; p++ {
			for i, v := range a[(k0+p)*ld+j1 : (k0+p)*ld+n] {
				pt[i*kb+p] = v
			}
		}
		parallel.ForBlocks((n2+cholRows-1)/cholRows, func() func(b int) {
			tmp := make([]float64, cholRows*n2)
			return func(b int) {
				i0, i1 := b*cholRows, min((b+1)*cholRows, n2)
				w := n2 - i0
				fastmath.MulNN(tmp, w, pt[i0*kb:], kb, a[k0*ld+j1+i0:], ld, i1-i0, w, kb)
				for i := i0; i < i1; i++ {
					row := a[(j1+i)*ld+j1+i : (j1+i)*ld+n]
					floats.Sub(row, tmp[(i-i0)*w+(i-i0):(i-i0+1)*w])
				}
			}
		})
	}
	return perm, n, nil
}

// swapSym swaps positions j < p of the pivoted factorisation: columns j
// and p of the rows of R above j, and rows and columns j and p of the
// trailing symmetric matrix (rows j… of a, upper triangle).
func swapSym(a []float64, ld, n, j, p int) {
	for i := 0; i < j; i++ {
		a[i*ld+j], a[i*ld+p] = a[i*ld+p], a[i*ld+j]
	}
	a[j*ld+j], a[p*ld+p] = a[p*ld+p], a[j*ld+j]
	for i := j + 1; i < p; i++ {
		a[j*ld+i], a[i*ld+p] = a[i*ld+p], a[j*ld+i]
	}
	for i := p + 1; i < n; i++ {
		a[j*ld+i], a[p*ld+i] = a[p*ld+i], a[j*ld+i]
	}
}

// FromKernelRow sets dst (length Dim) to z(x) from the kernel values kv =
// k_m(x) of x against the landmarks: K_mm^{-1/2} kv for the eigen map (a
// dot product per entry), R⁻ᵀ kv for the Cholesky map (a forward
// substitution), in a fixed order, so that it is the same bits on every
// machine and core count. dst and kv may be the same slice.
func (n *Nystrom) FromKernelRow(dst, kv []float64) {
	if n.Factor == nil {
		if &dst[0] == &kv[0] {
			kv = append([]float64(nil), kv...)
		}
		for i := range dst {
			dst[i] = floats.Dot(n.Norm.RawRowView(i), kv)
		}
		return
	}
	copy(dst, kv)
	r := len(dst)
	for i := 0; i < r; i++ {
		row := n.Factor.RawRowView(i)
		dst[i] /= row[i]
		if v := dst[i]; v != 0 {
			floats.AddScaled(dst[i+1:r], -v, row[i+1:r])
		}
	}
}

// Weights sets dst (length Dim) to the weights α of the landmarks' kernel
// values in ⟨z(y), w⟩ = k_m(y)ᵀα: K_mm^{-1/2} w for the eigen map, R⁻¹ w
// (a back substitution) for the Cholesky map, in a fixed order. dst and
// w may be the same slice.
func (n *Nystrom) Weights(dst, w []float64) {
	if n.Factor == nil {
		n.FromKernelRow(dst, w) // K_mm^{-1/2} is symmetric
		return
	}
	copy(dst, w)
	r := len(dst)
	for i := r - 1; i >= 0; i-- {
		row := n.Factor.RawRowView(i)
		dst[i] = (dst[i] - floats.Dot(row[i+1:r], dst[i+1:r])) / row[i]
	}
}

// solveRows sets the r rows of z (stride r, row-major) to z_i R⁻¹ in
// place — each row zᵀ becomes (R⁻ᵀ z)ᵀ — by panels of cholPanel columns:
// the panel less the product of the columns before it with R's block
// above it (fastmath.MulNN), then a forward substitution in the panel.
func (n *Nystrom) solveRows(z []float64, rows int, tmp []float64) {
	R := n.Factor.RawMatrix()
	r := n.rank
	for j0 := 0; j0 < r; j0 += cholPanel {
		j1 := min(j0+cholPanel, r)
		w := j1 - j0
		if j0 > 0 {
			fastmath.MulNN(tmp, w, z, r, R.Data[j0:], R.Stride, rows, w, j0)
			for i := 0; i < rows; i++ {
				floats.Sub(z[i*r+j0:i*r+j1], tmp[i*w:(i+1)*w])
			}
		}
		for i := 0; i < rows; i++ {
			zi := z[i*r : i*r+r]
			for c := j0; c < j1; c++ {
				row := R.Data[c*R.Stride : c*R.Stride+r]
				zi[c] /= row[c]
				if v := zi[c]; v != 0 {
					floats.AddScaled(zi[c+1:j1], -v, row[c+1:j1])
				}
			}
		}
	}
}
