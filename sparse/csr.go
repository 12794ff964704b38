package sparse

import (
	"fmt"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// CSR is an r × c matrix in compressed sparse row form: the non-zeros of row
// i are Data[Indptr[i]:Indptr[i+1]] in columns Ind[Indptr[i]:Indptr[i+1]].
type CSR struct {
	r, c   int
	indptr []int
	ind    []int
	data   []float64
}

var _ mat.Matrix = (*CSR)(nil)

// NewCSR returns a CSR matrix over the given arrays, which it takes ownership
// of. It panics if the arrays are inconsistent (a programming error).
func NewCSR(r, c int, indptr, ind []int, data []float64) *CSR {
	if r < 0 || c < 0 || len(indptr) != r+1 || len(ind) != len(data) || indptr[0] != 0 || indptr[r] != len(data) {
		panic("sparse: inconsistent CSR arrays")
	}
	for i := 0; i < r; i++ {
		if indptr[i] > indptr[i+1] {
			panic("sparse: indptr not monotone")
		}
		for k := indptr[i]; k < indptr[i+1]; k++ {
			if ind[k] < 0 || ind[k] >= c || (k > indptr[i] && ind[k] <= ind[k-1]) {
				panic(fmt.Sprintf("sparse: bad column index %d in row %d", ind[k], i))
			}
		}
	}
	return &CSR{r: r, c: c, indptr: indptr, ind: ind, data: data}
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
// values are dropped. It returns an error for a negative or out-of-range or
// repeated column.
func (b *Builder) AddRow(cols []int, vals []float64) error {
	start := len(b.ind)
	for k, j := range cols {
		if j < 0 || (b.cols > 0 && j >= b.cols) {
			return fmt.Errorf("column index %d out of range", j+1)
		}
		if vals[k] == 0 {
			continue
		}
		b.ind = append(b.ind, j)
		b.data = append(b.data, vals[k])
	}
	row := rowSorter{b.ind[start:], b.data[start:]}
	if !sort.IsSorted(row) {
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

// Rows returns the number of rows added so far.
func (b *Builder) Rows() int { return len(b.indptr) - 1 }

// Build returns the matrix. With cols = 0 in NewBuilder the column count is
// one more than the largest index seen (or minCols, whichever is larger).
func (b *Builder) Build(minCols int) *CSR {
	c := b.cols
	if c == 0 {
		for _, j := range b.ind {
			if j+1 > c {
				c = j + 1
			}
		}
	}
	if minCols > c {
		c = minCols
	}
	return &CSR{r: len(b.indptr) - 1, c: c, indptr: b.indptr, ind: b.ind, data: b.data}
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

// Dims returns the number of rows and columns.
func (m *CSR) Dims() (r, c int) { return m.r, m.c }

// At returns the element at row i, column j.
func (m *CSR) At(i, j int) float64 {
	if uint(i) >= uint(m.r) || uint(j) >= uint(m.c) {
		panic(mat.ErrIndexOutOfRange)
	}
	lo, hi := m.indptr[i], m.indptr[i+1]
	k := lo + sort.SearchInts(m.ind[lo:hi], j)
	if k < hi && m.ind[k] == j {
		return m.data[k]
	}
	return 0
}

// T returns the implicit transpose.
func (m *CSR) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// NNZ returns the number of stored non-zeros.
func (m *CSR) NNZ() int { return len(m.data) }

// RowNonZeros returns the column indices and values of row i. The slices
// alias the matrix and must not be modified.
func (m *CSR) RowNonZeros(i int) (ind []int, vals []float64) {
	lo, hi := m.indptr[i], m.indptr[i+1]
	return m.ind[lo:hi], m.data[lo:hi]
}

// DoNonZero calls fn for every stored non-zero, row by row.
func (m *CSR) DoNonZero(fn func(i, j int, v float64)) {
	for i := 0; i < m.r; i++ {
		for k := m.indptr[i]; k < m.indptr[i+1]; k++ {
			fn(i, m.ind[k], m.data[k])
		}
	}
}

// DoRowNonZero calls fn for every stored non-zero of row i.
func (m *CSR) DoRowNonZero(i int, fn func(i, j int, v float64)) {
	for k := m.indptr[i]; k < m.indptr[i+1]; k++ {
		fn(i, m.ind[k], m.data[k])
	}
}

// SliceRows returns rows [i, k) as a CSR sharing storage with m.
func (m *CSR) SliceRows(i, k int) *CSR {
	if i < 0 || k > m.r || i > k {
		panic(mat.ErrIndexOutOfRange)
	}
	ip := make([]int, k-i+1)
	base := m.indptr[i]
	for t := range ip {
		ip[t] = m.indptr[i+t] - base
	}
	return &CSR{r: k - i, c: m.c, indptr: ip, ind: m.ind[base:m.indptr[k]], data: m.data[base:m.indptr[k]]}
}

// MulDenseT sets dst = m · Bᵀ, where B is p × c (so dst is r × p), touching
// only the stored entries of m. dst must be r × p. This is the product a
// random feature map needs: X Wᵀ for frequencies W stored one per row.
func (m *CSR) MulDenseT(dst *mat.Dense, B mat.RawMatrixer) {
	raw := B.RawMatrix()
	if raw.Cols != m.c {
		panic(mat.ErrShape)
	}
	dr, dc := dst.Dims()
	if dr != m.r || dc != raw.Rows {
		panic(mat.ErrShape)
	}
	out := dst.RawMatrix()
	for i := 0; i < m.r; i++ {
		row := out.Data[i*out.Stride : i*out.Stride+dc]
		lo, hi := m.indptr[i], m.indptr[i+1]
		for p := range row {
			b := raw.Data[p*raw.Stride : p*raw.Stride+raw.Cols]
			var s float64
			for k := lo; k < hi; k++ {
				s += m.data[k] * b[m.ind[k]]
			}
			row[p] = s
		}
	}
}

// MulDense sets dst = m · B, where B is c × p (so dst is r × p), with one
// scaled row update of length p per stored entry of m. dst must be r × p.
func (m *CSR) MulDense(dst *mat.Dense, B mat.RawMatrixer) {
	raw := B.RawMatrix()
	if raw.Rows != m.c {
		panic(mat.ErrShape)
	}
	dr, dc := dst.Dims()
	if dr != m.r || dc != raw.Cols {
		panic(mat.ErrShape)
	}
	out := dst.RawMatrix()
	for i := 0; i < m.r; i++ {
		row := out.Data[i*out.Stride : i*out.Stride+dc]
		clear(row)
		for k := m.indptr[i]; k < m.indptr[i+1]; k++ {
			j := m.ind[k]
			floats.AddScaled(row, m.data[k], raw.Data[j*raw.Stride:j*raw.Stride+raw.Cols])
		}
	}
}

// ToDense returns a dense copy. It is meant for tests and small matrices;
// the library's sparse paths never call it.
func (m *CSR) ToDense() *mat.Dense {
	d := mat.NewDense(m.r, m.c, nil)
	m.DoNonZero(func(i, j int, v float64) { d.Set(i, j, v) })
	return d
}
