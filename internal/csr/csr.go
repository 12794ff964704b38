package csr

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/james-bowman/sparse"
	"github.com/james-bowman/sparse/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Row returns the column indices and values of row i of m. The slices alias
// m's storage (through RawMatrix) and must not be modified.
func Row(m *sparse.CSR, i int) (ind []int, val []float64) {
	raw := m.RawMatrix()
	lo, hi := raw.Indptr[i], raw.Indptr[i+1]
	return raw.Ind[lo:hi:hi], raw.Data[lo:hi:hi]
}

// ReadRow copies row i of X into dst (len(dst) = columns of X): a dense
// row as it is, a sparse one scattered from its non-zeros (never read
// value by value), any other matrix through mat.Row.
func ReadRow(dst []float64, X mat.Matrix, i int) {
	switch m := X.(type) {
	case mat.RawRowViewer:
		copy(dst, m.RawRowView(i))
	case *sparse.CSR:
		clear(dst)
		ind, val := Row(m, i)
		for k, j := range ind {
			dst[j] = val[k]
		}
	default:
		mat.Row(dst, i, X)
	}
}

// Rows returns rows [i, k) of X as the row-wise kernels take them: a view
// of a *mat.Dense, a *sparse.CSR's rows (SliceRows: sparse input is never
// densified), and otherwise a copy of those rows.
func Rows(X mat.Matrix, i, k int) mat.Matrix {
	switch m := X.(type) {
	case *mat.Dense:
		_, c := m.Dims()
		return m.Slice(i, k, 0, c)
	case *sparse.CSR:
		return SliceRows(m, i, k)
	}
	_, c := X.Dims()
	out := mat.NewDense(k-i, c, nil)
	for r := i; r < k; r++ {
		mat.Row(out.RawRowView(r-i), r, X)
	}
	return out
}

// SliceRows returns rows [i, k) of m as a CSR matrix that shares m's
// column and value storage (only the k−i+1 row pointers are new).
func SliceRows(m *sparse.CSR, i, k int) *sparse.CSR {
	raw := m.RawMatrix()
	if i < 0 || k > raw.I || i > k {
		panic(mat.ErrIndexOutOfRange)
	}
	base, end := raw.Indptr[i], raw.Indptr[k]
	ip := make([]int, k-i+1)
	for t := range ip {
		ip[t] = raw.Indptr[i+t] - base
	}
	return sparse.NewCSR(k-i, raw.J, ip, raw.Ind[base:end:end], raw.Data[base:end:end])
}

// Subset returns the rows idx of m (in that order, repeats allowed) as a
// new CSR matrix holding copies of their non-zeros only, in arrays of
// exactly their size.
func Subset(m *sparse.CSR, idx []int) *sparse.CSR {
	_, c := m.Dims()
	raw := m.RawMatrix()
	total := 0
	for _, i := range idx {
		total += raw.Indptr[i+1] - raw.Indptr[i]
	}
	indptr := make([]int, 1, len(idx)+1)
	ind := make([]int, 0, total)
	data := make([]float64, 0, total)
	for _, i := range idx {
		ri, rv := Row(m, i)
		ind = append(ind, ri...)
		data = append(data, rv...)
		indptr = append(indptr, len(ind))
	}
	return sparse.NewCSR(len(idx), c, indptr, ind, data)
}

// MulDenseT sets dst = m·Bᵀ, where B is p × c (so dst is r × p), with one
// sparse dot product (blas.Dusdot, a gather over the row's stored entries)
// per element of dst. This is the product a random feature map needs: X·Wᵀ
// for frequencies W stored one per row, without forming Wᵀ.
func MulDenseT(dst *mat.Dense, m *sparse.CSR, B mat.RawMatrixer) {
	raw := B.RawMatrix()
	sp, out := operands(dst, m, raw.Cols, raw.Rows)
	for i := 0; i < sp.I; i++ {
		row := out.Data[i*out.Stride : i*out.Stride+out.Cols]
		lo, hi := sp.Indptr[i], sp.Indptr[i+1]
		ind, val := sp.Ind[lo:hi], sp.Data[lo:hi]
		for p := range row {
			row[p] = blas.Dusdot(val, ind, raw.Data[p*raw.Stride:p*raw.Stride+raw.Cols], 1)
		}
	}
}

// MulDense sets dst = m·B, where B is c × p (so dst is r × p), with one
// scaled row update of length p (a dense axpy) per stored entry of m.
func MulDense(dst *mat.Dense, m *sparse.CSR, B mat.RawMatrixer) {
	raw := B.RawMatrix()
	sp, out := operands(dst, m, raw.Rows, raw.Cols)
	for i := 0; i < sp.I; i++ {
		row := out.Data[i*out.Stride : i*out.Stride+out.Cols]
		clear(row)
		for k := sp.Indptr[i]; k < sp.Indptr[i+1]; k++ {
			j := sp.Ind[k]
			floats.AddScaled(row, sp.Data[k], raw.Data[j*raw.Stride:j*raw.Stride+raw.Cols])
		}
	}
}

// operands returns the raw storage of m and dst for dst = m·op(B) with
// op(B) inner × p: it panics with mat.ErrShape unless m has inner columns
// and dst is m's rows × p.
func operands(dst *mat.Dense, m *sparse.CSR, inner, p int) (*blas.SparseMatrix, blas64.General) {
	sp := m.RawMatrix()
	if inner != sp.J {
		panic(mat.ErrShape)
	}
	if dr, dc := dst.Dims(); dr != sp.I || dc != p {
		panic(mat.ErrShape)
	}
	return sp, dst.RawMatrix()
}

// Canonical returns X as a CSR matrix whose rows have strictly increasing
// column indices, the form every sparse path of this module reads (sparse
// dot products are merge joins). It reports false for a matrix that is not
// one of james-bowman/sparse's types.
//
// A *sparse.CSR that is already canonical is returned as it is (one pass
// over its indices); one with unsorted or repeated indices in a row is
// copied with each row sorted and repeats summed, as scipy's
// sum_duplicates does. The other sparse formats (COO, DOK, CSC, DIA) are
// converted with their own ToCSR and then made canonical. The result is
// never dense. A CSR whose arrays are inconsistent (see Check) panics.
func Canonical(X mat.Matrix) (*sparse.CSR, bool) {
	var m *sparse.CSR
	switch t := X.(type) {
	case *sparse.CSR:
		m = t
	case sparse.TypeConverter:
		m = t.ToCSR()
	default:
		return nil, false
	}
	raw := m.RawMatrix()
	if err := Check(m); err != nil {
		// NewCSR does not check its arrays; a broken matrix is a
		// programming error of the caller, reported before any index
		// goes out of range deep inside a kernel.
		panic("sparse input: " + err.Error())
	}
	if sorted(raw) {
		return m, true
	}
	indptr := make([]int, raw.I+1)
	ind := make([]int, 0, len(raw.Ind))
	data := make([]float64, 0, len(raw.Data))
	for i := 0; i < raw.I; i++ {
		lo, hi := raw.Indptr[i], raw.Indptr[i+1]
		start := len(ind)
		ind = append(ind, raw.Ind[lo:hi]...)
		data = append(data, raw.Data[lo:hi]...)
		r := rowSorter{ind[start:], data[start:]}
		sort.Sort(r)
		// Sum repeats in place.
		w := start
		for k := start; k < len(ind); k++ {
			if k > start && ind[k] == ind[w-1] {
				data[w-1] += data[k]
				continue
			}
			ind[w], data[w] = ind[k], data[k]
			w++
		}
		ind, data = ind[:w], data[:w]
		indptr[i+1] = len(ind)
	}
	return sparse.NewCSR(raw.I, raw.J, indptr, ind, data), true
}

func sorted(raw *blas.SparseMatrix) bool {
	for i := 0; i < raw.I; i++ {
		for k := raw.Indptr[i] + 1; k < raw.Indptr[i+1]; k++ {
			if raw.Ind[k] <= raw.Ind[k-1] {
				return false
			}
		}
	}
	return true
}

// Check returns an error describing the first inconsistency of m's arrays
// (row pointers not starting at 0 or not monotone, a column index out of
// range). A *sparse.CSR made by NewCSR is not checked by james-bowman/sparse;
// this is the check for arrays that come from outside, such as a saved
// model.
func Check(m *sparse.CSR) error {
	raw := m.RawMatrix()
	if raw.I < 0 || raw.J < 0 || len(raw.Indptr) != raw.I+1 || len(raw.Ind) != len(raw.Data) ||
		raw.Indptr[0] != 0 || raw.Indptr[raw.I] != len(raw.Data) {
		return fmt.Errorf("inconsistent CSR arrays (%d × %d, %d row pointers, %d indices, %d values)",
			raw.I, raw.J, len(raw.Indptr), len(raw.Ind), len(raw.Data))
	}
	for i := 0; i < raw.I; i++ {
		if raw.Indptr[i] > raw.Indptr[i+1] {
			return fmt.Errorf("row pointers decrease at row %d", i)
		}
		for k := raw.Indptr[i]; k < raw.Indptr[i+1]; k++ {
			if j := raw.Ind[k]; j < 0 || j >= raw.J {
				return fmt.Errorf("column index %d out of range [0, %d) in row %d", j, raw.J, i)
			}
		}
	}
	return nil
}

// Builder accumulates a CSR matrix row by row.
type Builder struct {
	cols   int
	indptr []int
	ind    []int
	data   []float64
}

// NewBuilder starts a matrix with the given number of columns; a column count
// of 0 means "grow to the largest index seen".
func NewBuilder(cols int) *Builder { return &Builder{cols: cols, indptr: []int{0}} }

// AddRow appends a row given as (column, value) pairs in any order. Zero
// values are dropped. It returns an error for a negative, out-of-range or
// repeated column (reported one-based, as the file formats number them).
func (b *Builder) AddRow(cols []int, vals []float64) error {
	start := len(b.ind)
	for k, j := range cols {
		if j < 0 || (b.cols > 0 && j >= b.cols) {
			b.ind, b.data = b.ind[:start], b.data[:start]
			return fmt.Errorf("column index %d out of range", j+1)
		}
		if vals[k] == 0 {
			continue
		}
		b.ind = append(b.ind, j)
		b.data = append(b.data, vals[k])
	}
	row := rowSorter{b.ind[start:], b.data[start:]}
	if !slices.IsSorted(row.ind) {
		sort.Sort(row)
	}
	for k := start + 1; k < len(b.ind); k++ {
		if j := b.ind[k]; j == b.ind[k-1] {
			b.ind, b.data = b.ind[:start], b.data[:start]
			return fmt.Errorf("column index %d repeated", j+1)
		}
	}
	b.indptr = append(b.indptr, len(b.ind))
	return nil
}

// Reserve makes room for total stored values. When they do not fit, both
// buffers grow to total, and at least a quarter more than they hold (and
// at least 1024 values); check, when not nil, is called first with the
// bytes the old and the new buffers hold together while the values are
// copied (the peak), and an error from it leaves the builder as it was.
func (b *Builder) Reserve(total int, check func(bytes int64) error) error {
	if total <= cap(b.ind) && total <= cap(b.data) {
		return nil
	}
	c := max(total, cap(b.ind)+cap(b.ind)/4, 1024)
	if check != nil {
		if err := check(16 * (int64(cap(b.ind)) + int64(c))); err != nil {
			return err
		}
	}
	ind := make([]int, len(b.ind), c)
	copy(ind, b.ind)
	data := make([]float64, len(b.data), c)
	copy(data, b.data)
	b.ind, b.data = ind, data
	return nil
}

// Rows returns the number of rows added so far.
func (b *Builder) Rows() int { return len(b.indptr) - 1 }

// Stored returns the number of values stored so far (the non-zeros).
func (b *Builder) Stored() int { return len(b.ind) }

// Build returns the matrix. With cols = 0 in NewBuilder the column count is
// one more than the largest index seen (or minCols, whichever is larger).
func (b *Builder) Build(minCols int) *sparse.CSR {
	c := b.cols
	if c == 0 {
		for _, j := range b.ind {
			c = max(c, j+1)
		}
	}
	c = max(c, minCols)
	return sparse.NewCSR(len(b.indptr)-1, c, b.indptr, b.ind, b.data)
}

type rowSorter struct {
	ind  []int
	data []float64
}

func (s rowSorter) Len() int           { return len(s.ind) }
func (s rowSorter) Less(i, j int) bool { return s.ind[i] < s.ind[j] }
func (s rowSorter) Swap(i, j int) {
	s.ind[i], s.ind[j] = s.ind[j], s.ind[i]
	s.data[i], s.data[j] = s.data[j], s.data[i]
}

// Input is the entry check of the public functions that take a mat.Matrix:
// a sparse matrix of james-bowman/sparse (any format) comes back as a
// canonical *sparse.CSR (see Canonical), anything else as it is.
func Input(X mat.Matrix) mat.Matrix {
	if m, ok := Canonical(X); ok {
		return m
	}
	return X
}

// Random returns an n × d CSR matrix with nnz distinct random columns per
// row and N(0, 1) values, seeded: the shape of bag-of-words and one-hot
// data, for the tests and benchmarks of the sparse paths.
func Random(n, d, nnz int, seed uint64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, seed))
	indptr := make([]int, n+1)
	ind := make([]int, 0, n*nnz)
	val := make([]float64, 0, n*nnz)
	seen := map[int]bool{}
	for i := 0; i < n; i++ {
		clear(seen)
		start := len(ind)
		for len(seen) < min(nnz, d) {
			if j := rng.IntN(d); !seen[j] {
				seen[j] = true
				ind = append(ind, j)
			}
		}
		slices.Sort(ind[start:])
		for range ind[start:] {
			val = append(val, rng.NormFloat64())
		}
		indptr[i+1] = len(ind)
	}
	return sparse.NewCSR(n, d, indptr, ind, val)
}
