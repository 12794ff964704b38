package smo

import (
	"sync"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/fastmath"
	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/mat"
)

// rowStore holds rows of a data matrix: dense and row-major, or for a
// sparse input as compressed rows (ptr, ind, val), so a LIBSVM file with
// millions of columns costs its non-zeros, never rows × columns.
type rowStore struct {
	d     int
	dense []float64 // n × d when ptr is nil
	ptr   []int     // n+1 row offsets into ind and val (sparse)
	ind   []int
	val   []float64
	sq    []float64 // ‖x_i‖²
}

// newRowStore copies the rows i of X with keep(i) (nil keeps all), sparse
// when X is sparse.
func newRowStore(X mat.Matrix, keep func(i int) bool) rowStore {
	n, d := X.Dims()
	s := rowStore{d: d}
	// The rows kept and their non-zeros are counted first, so that each
	// array is allocated once at its size (grown by append, the arrays
	// held up to twice the rows while they grew).
	rows, nnz := 0, 0
	sp, isSparse := X.(*sparse.CSR)
	for i := 0; i < n; i++ {
		if keep != nil && !keep(i) {
			continue
		}
		rows++
		if isSparse {
			ind, _ := csr.Row(sp, i)
			nnz += len(ind)
		}
	}
	if isSparse {
		s.ptr = make([]int, 1, rows+1)
		s.ind = make([]int, 0, nnz)
		s.val = make([]float64, 0, nnz)
		for i := 0; i < n; i++ {
			if keep != nil && !keep(i) {
				continue
			}
			ind, vals := csr.Row(sp, i)
			s.ind = append(s.ind, ind...)
			s.val = append(s.val, vals...)
			s.ptr = append(s.ptr, len(s.ind))
		}
	} else {
		s.dense = make([]float64, rows*d)
		k := 0
		for i := 0; i < n; i++ {
			if keep != nil && !keep(i) {
				continue
			}
			csr.ReadRow(s.dense[k*d:(k+1)*d], X, i)
			k++
		}
	}
	s.norms()
	return s
}

// norms computes the squared norms of the rows.
func (s *rowStore) norms() {
	s.sq = make([]float64, s.len())
	for i := range s.sq {
		if s.ptr != nil {
			_, v := s.sparseRow(i)
			s.sq[i] = dot(v, v)
		} else {
			x := s.denseRow(i)
			s.sq[i] = dot(x, x)
		}
	}
}

func (s *rowStore) len() int {
	if s.ptr != nil {
		return len(s.ptr) - 1
	}
	if s.d == 0 {
		return 0
	}
	return len(s.dense) / s.d
}

func (s *rowStore) denseRow(i int) []float64 {
	return s.dense[i*s.d : (i+1)*s.d : (i+1)*s.d]
}

func (s *rowStore) sparseRow(i int) ([]int, []float64) {
	lo, hi := s.ptr[i], s.ptr[i+1]
	return s.ind[lo:hi:hi], s.val[lo:hi:hi]
}

// row is one query row against a store: dense (x) or sparse (ind, val),
// with its squared norm and, when needed, a dense scatter buffer.
type row struct {
	x      []float64
	ind    []int
	val    []float64
	sq     float64
	buf    []float64 // lazily allocated dense scatter of a sparse row
	filled bool
}

// setStored makes r row i of s.
func (r *row) setStored(s *rowStore, i int) {
	r.reset()
	if s.ptr != nil {
		r.ind, r.val = s.sparseRow(i)
	} else {
		r.x = s.denseRow(i)
	}
	r.sq = s.sq[i]
}

// setFrom makes r row i of X (a view of it where X allows, scratch is the
// dense row's buffer otherwise).
func (r *row) setFrom(X mat.Matrix, i int, scratch []float64) {
	r.reset()
	switch m := X.(type) {
	case *sparse.CSR:
		r.ind, r.val = csr.Row(m, i)
		r.sq = dot(r.val, r.val)
	case mat.RawMatrixer:
		raw := m.RawMatrix()
		r.x = raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols : i*raw.Stride+raw.Cols]
		r.sq = dot(r.x, r.x)
	default:
		mat.Row(scratch, i, X)
		r.x = scratch
		r.sq = dot(r.x, r.x)
	}
}

func (r *row) reset() {
	if r.filled {
		for _, j := range r.ind {
			r.buf[j] = 0
		}
		r.filled = false
	}
	r.x, r.ind, r.val = nil, nil, nil
}

// dense returns the row as a dense slice of length d, scattering a sparse
// row into its buffer (allocated on first use).
func (r *row) dense(d int) []float64 {
	if r.x != nil {
		return r.x
	}
	if r.buf == nil {
		r.buf = make([]float64, d)
	}
	if !r.filled {
		for t, j := range r.ind {
			r.buf[j] = r.val[t]
		}
		r.filled = true
	}
	return r.buf
}

// dot returns ⟨a, b⟩ for any mix of dense and sparse rows. Two sparse
// rows are merged, or, when one of them is scattered into its buffer
// (dense), the other's non-zeros gather from it: the same products in
// the same order (of the other's columns), and zeros.
func (a *row) dot(b *row) float64 {
	switch {
	case a.x != nil && b.x != nil:
		return dot(a.x, b.x)
	case a.x == nil && b.x == nil:
		switch {
		case b.filled:
			return sparseDenseDot(a.ind, a.val, b.buf)
		case a.filled:
			return sparseDenseDot(b.ind, b.val, a.buf)
		}
		return kernel.SparseDot(a.ind, a.val, b.ind, b.val)
	case a.x != nil:
		return sparseDenseDot(b.ind, b.val, a.x)
	default:
		return sparseDenseDot(a.ind, a.val, b.x)
	}
}

// eval returns k(a, b): the RBF kernel from the norms and the inner
// product (with gamma = −γ), other kernels on the non-zeros of two sparse
// rows, or on dense rows.
func eval(k kernel.Kernel, rbf bool, negGamma float64, a, b *row, d int) float64 {
	if rbf {
		return expNeg(negGamma * fastmath.SqDist(a.sq, b.sq, a.dot(b)))
	}
	if a.x == nil && b.x == nil {
		if v, ok := kernel.EvalSparse(k, a.ind, a.val, b.ind, b.val); ok {
			return v
		}
	}
	return k.Eval(a.dense(d), b.dense(d))
}

// Scattering a sparse row into a dense buffer, for the RBF kernel's dot
// products against many other sparse rows: a gather over one row's
// non-zeros instead of a merge of both (a third of the time at 8,000
// non-zeros a row of 50,000 columns). Only for rows of at most
// scatterMaxCols columns (a buffer per worker, in the L2 cache) with at
// least scatterMinNonZeros non-zeros a row on average (shorter merges
// cost less than the scatter).
const (
	scatterMaxCols     = 1 << 18
	scatterMinNonZeros = 16
)

// scatters reports whether sparse rows of d columns holding nnz non-zeros
// over n rows are worth scattering.
func scatters(d, nnz, n int) bool {
	return d <= scatterMaxCols && nnz >= scatterMinNonZeros*max(n, 1)
}

// scatterPool holds zeroed buffers of scattered rows.
var scatterPool = sync.Pool{New: func() any { return new([]float64) }}

// scatter scatters the sparse row r into a zeroed buffer of d values from
// scatterPool and returns the function that zeroes it again and gives it
// back (r keeps its non-zeros).
func (r *row) scatter(d int) (release func()) {
	bp := scatterPool.Get().(*[]float64)
	if cap(*bp) < d {
		*bp = make([]float64, d)
	}
	r.buf = (*bp)[:d]
	r.dense(d)
	return func() {
		r.reset()
		r.buf = nil
		scatterPool.Put(bp)
	}
}

func sparseDenseDot(ind []int, val, y []float64) float64 {
	var s float64
	for t, j := range ind {
		s += val[t] * y[j]
	}
	return s
}
