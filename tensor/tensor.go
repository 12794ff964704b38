package tensor

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Dense is a dense N-way tensor stored in row-major (C) order: the last index
// varies fastest, so element (i_0, …, i_{N−1}) sits at offset
// ((i_0·I_1 + i_1)·I_2 + …)·I_{N−1} + i_{N−1} of the data slice.
//
// A Dense may share its data with a matrix row (see RowView) or with another
// Dense; writes through one are seen by the other.
type Dense struct {
	shape []int
	data  []float64
}

// ShapeError reports a sample shape that does not fit the data: a side
// smaller than 1, an empty shape, or a product of sides that differs from
// the length it must describe (the row length of a batch matrix).
type ShapeError struct {
	Shape []int
	// Len is the number of elements the shape must describe.
	Len int
	// Reason says what is wrong; empty for a product mismatch.
	Reason string
}

func (e *ShapeError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("tensor: shape %s: %s", FormatShape(e.Shape), e.Reason)
	}
	p, _ := product(e.Shape)
	return fmt.Sprintf("tensor: shape %s has %d elements but the data has %d per sample", FormatShape(e.Shape), p, e.Len)
}

// FormatShape writes a shape the way the command line reads it: "24x51".
func FormatShape(shape []int) string {
	s := make([]string, len(shape))
	for i, v := range shape {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, "x")
}

// ParseShape reads a shape written as sides separated by 'x' or ',' ("24x51",
// "12,10,8"). Every side must be at least 1.
func ParseShape(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, &ShapeError{Reason: "empty shape"}
	}
	// Split, not FieldsFunc: "3x4x" and "3xx4" have an empty side, which
	// FieldsFunc dropped, accepting them as 3x4.
	parts := strings.Split(strings.NewReplacer("X", "x", ",", "x", "×", "x").Replace(s), "x")
	shape := make([]int, len(parts))
	for i, p := range parts {
		if strings.TrimSpace(p) == "" {
			return nil, fmt.Errorf("tensor: shape %q: an empty side (a separator at an end, or two in a row)", s)
		}
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("tensor: shape %q: side %q is not an integer", s, p)
		}
		shape[i] = v
	}
	if err := validShape(shape); err != nil {
		return nil, err
	}
	return shape, nil
}

// CheckShape reports whether shape describes rows of length n: every side is
// at least 1 and the product of the sides is n. It returns a *ShapeError
// otherwise.
func CheckShape(shape []int, n int) error {
	if err := validShape(shape); err != nil {
		return err
	}
	if p, ok := product(shape); !ok || p != n {
		return &ShapeError{Shape: append([]int(nil), shape...), Len: n}
	}
	return nil
}

func validShape(shape []int) error {
	if len(shape) == 0 {
		return &ShapeError{Reason: "empty shape (order 0)"}
	}
	for i, v := range shape {
		if v < 1 {
			return &ShapeError{Shape: append([]int(nil), shape...), Reason: fmt.Sprintf("side %d is %d, must be at least 1", i+1, v)}
		}
	}
	if _, ok := product(shape); !ok {
		return &ShapeError{Shape: append([]int(nil), shape...), Reason: "too many elements"}
	}
	return nil
}

// product returns the product of the sides and false on overflow.
func product(shape []int) (int, bool) {
	p := 1
	for _, v := range shape {
		if v <= 0 || p > math.MaxInt/v {
			return 0, false
		}
		p *= v
	}
	return p, true
}

// New returns a tensor of the given shape on data, which is used without
// copying. It returns a *ShapeError when a side is below 1 or the product of
// the sides differs from len(data). If data is nil a zero tensor is
// allocated.
func New(shape []int, data []float64) (*Dense, error) {
	if err := validShape(shape); err != nil {
		return nil, err
	}
	p, _ := product(shape)
	if data == nil {
		data = make([]float64, p)
	}
	if p != len(data) {
		return nil, &ShapeError{Shape: append([]int(nil), shape...), Len: len(data)}
	}
	return &Dense{shape: append([]int(nil), shape...), data: data}, nil
}

// Zeros returns a zero tensor of the given shape. It panics if a side is
// below 1.
func Zeros(shape ...int) *Dense {
	t, err := New(shape, nil)
	if err != nil {
		panic(err.Error())
	}
	return t
}

// RowView returns the i-th row of the batch matrix X (one sample per row,
// flattened row-major) as a tensor of the given shape, sharing X's memory.
// It returns a *ShapeError when the product of shape differs from the
// number of columns of X, and panics if i is out of range.
func RowView(X mat.RawMatrixer, i int, shape []int) (*Dense, error) {
	raw := X.RawMatrix()
	if err := CheckShape(shape, raw.Cols); err != nil {
		return nil, err
	}
	if i < 0 || i >= raw.Rows {
		panic("tensor: row index out of range")
	}
	return &Dense{shape: append([]int(nil), shape...), data: raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols : i*raw.Stride+raw.Cols]}, nil
}

// Row copies the i-th row of any matrix X into dst, which must already have
// X's column count of elements. It is the copying counterpart of RowView for
// matrices that do not expose their memory (views of other types, sparse).
func (t *Dense) Row(X mat.Matrix, i int) {
	_, c := X.Dims()
	if c != len(t.data) {
		panic("tensor: row length differs from the tensor size")
	}
	if rv, ok := X.(mat.RowViewer); ok {
		v := rv.RowView(i)
		for j := range c {
			t.data[j] = v.AtVec(j)
		}
		return
	}
	mat.Row(t.data, i, X)
}

// Shape returns the sides of t. The slice must not be modified.
func (t *Dense) Shape() []int { return t.shape }

// Order returns the number of modes N.
func (t *Dense) Order() int { return len(t.shape) }

// Len returns the number of elements.
func (t *Dense) Len() int { return len(t.data) }

// Data returns the row-major backing slice (no copy).
func (t *Dense) Data() []float64 { return t.data }

// Clone returns a deep copy of t.
func (t *Dense) Clone() *Dense {
	return &Dense{shape: append([]int(nil), t.shape...), data: append([]float64(nil), t.data...)}
}

func (t *Dense) offset(idx []int) int {
	if len(idx) != len(t.shape) {
		panic("tensor: wrong number of indices")
	}
	off := 0
	for n, i := range idx {
		if i < 0 || i >= t.shape[n] {
			panic("tensor: index out of range")
		}
		off = off*t.shape[n] + i
	}
	return off
}

// At returns the element at the given multi-index.
func (t *Dense) At(idx ...int) float64 { return t.data[t.offset(idx)] }

// Set sets the element at the given multi-index.
func (t *Dense) Set(v float64, idx ...int) { t.data[t.offset(idx)] = v }

// Norm returns the Frobenius norm √⟨X, X⟩, computed without overflow.
func (t *Dense) Norm() float64 { return floats.Norm(t.data, 2) }

// Inner returns the inner product ⟨X, Y⟩ = Σ x_{i…} y_{i…}. It panics if the
// shapes differ.
func Inner(x, y *Dense) float64 {
	if !sameShape(x.shape, y.shape) {
		panic("tensor: shape mismatch")
	}
	return floats.Dot(x.data, y.data)
}

func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// split returns the products of the sides before and after mode n.
func split(shape []int, n int) (before, after int) {
	before, after = 1, 1
	for j, v := range shape {
		switch {
		case j < n:
			before *= v
		case j > n:
			after *= v
		}
	}
	return before, after
}

// Reshape returns the row-major data of t seen as a matrix with the
// product of the first k sides as rows and the product of the rest as
// columns, sharing t's memory. Reshape(1) is the mode-0 unfolding X_(0) and
// Reshape(N−1) is the transpose of the last mode's unfolding, X_(N−1)ᵀ; both
// are free. It panics unless 0 < k < N.
func (t *Dense) Reshape(k int) *mat.Dense {
	if k <= 0 || k >= len(t.shape) {
		panic("tensor: reshape split out of range")
	}
	r, _ := product(t.shape[:k])
	return mat.NewDense(r, len(t.data)/r, t.data)
}

// Unfold writes the mode-n unfolding X_(n) into dst, resizing it to
// I_n × (Len/I_n). Column ordering is the row-major one: the remaining
// indices (i_0, …, i_{n−1}, i_{n+1}, …, i_{N−1}) are flattened in their
// natural order with the last varying fastest, so
//
//	X_(n)[i_n, ((i_0·I_1 + i_1)… )·I_{N−1} + i_{N−1}] = X[i_0, …, i_{N−1}],
//
// which is numpy's moveaxis(X, n, 0).reshape(I_n, −1). It matches KhatriRao
// (first factor varying slowest): X = [[A_0, …, A_{N−1}]] has
// X_(n) = A_n · KhatriRao(A_0, …, A_{n−1}, A_{n+1}, …, A_{N−1})ᵀ.
// Kolda & Bader's convention orders the columns with the first remaining
// index fastest and pairs with the Khatri–Rao product in reverse order; the
// two differ only by a column permutation.
func (t *Dense) Unfold(dst *mat.Dense, n int) {
	if n < 0 || n >= len(t.shape) {
		panic("tensor: mode out of range")
	}
	In := t.shape[n]
	cols := len(t.data) / In
	if dst.IsEmpty() {
		dst.ReuseAs(In, cols)
	} else if r, c := dst.Dims(); r != In || c != cols {
		panic(mat.ErrShape)
	}
	raw := dst.RawMatrix()
	before, after := split(t.shape, n)
	// X viewed as before × In × after; X_(n)[i, l·after + k] = X[l, i, k].
	for l := range before {
		for i := range In {
			src := t.data[(l*In+i)*after : (l*In+i+1)*after]
			copy(raw.Data[i*raw.Stride+l*after:i*raw.Stride+(l+1)*after], src)
		}
	}
}

// Fold is the inverse of Unfold: it returns the tensor of the given shape
// whose mode-n unfolding is m. It returns a *ShapeError if m's dimensions do
// not match shape and n.
func Fold(m mat.Matrix, n int, shape []int) (*Dense, error) {
	if err := validShape(shape); err != nil {
		return nil, err
	}
	if n < 0 || n >= len(shape) {
		panic("tensor: mode out of range")
	}
	p, _ := product(shape)
	r, c := m.Dims()
	if r != shape[n] || r*c != p {
		return nil, &ShapeError{Shape: append([]int(nil), shape...), Len: r * c,
			Reason: fmt.Sprintf("a %d×%d matrix is not a mode-%d unfolding of it", r, c, n)}
	}
	t := Zeros(shape...)
	before, after := split(shape, n)
	In := shape[n]
	for l := range before {
		for i := range In {
			dst := t.data[(l*In+i)*after : (l*In+i+1)*after]
			for k := range dst {
				dst[k] = m.At(i, l*after+k)
			}
		}
	}
	return t, nil
}

// KhatriRao writes the column-wise Kronecker product of mats into dst,
// resizing it to (Π rows) × R. All matrices must have R columns. The first
// matrix varies slowest: row (i_0·I_1 + i_1)·… + i_last of the result is the
// elementwise product of row i_0 of mats[0], row i_1 of mats[1], and so on.
// This is the ordering that pairs with Unfold (see there).
func KhatriRao(dst *mat.Dense, mats ...mat.Matrix) {
	if len(mats) == 0 {
		panic("tensor: Khatri–Rao of no matrices")
	}
	_, R := mats[0].Dims()
	rows := 1
	gs := make([]blas64.General, len(mats))
	for i, m := range mats {
		r, c := m.Dims()
		if c != R {
			panic("tensor: Khatri–Rao factors have different column counts")
		}
		rows *= r
		gs[i] = asGeneral(m)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(rows, R)
	} else if r, c := dst.Dims(); r != rows || c != R {
		panic(mat.ErrShape)
	}
	raw := dst.RawMatrix()
	if raw.Stride == R {
		KhatriRaoTo(raw.Data[:rows*R], gs)
		return
	}
	buf := make([]float64, rows*R)
	KhatriRaoTo(buf, gs)
	for i := range rows {
		copy(raw.Data[i*raw.Stride:i*raw.Stride+R], buf[i*R:(i+1)*R])
	}
}

func asGeneral(m mat.Matrix) blas64.General {
	if rm, ok := m.(mat.RawMatrixer); ok {
		return rm.RawMatrix()
	}
	return mat.DenseCopyOf(m).RawMatrix()
}

// KhatriRaoTo is the kernel of KhatriRao: it writes the Khatri–Rao product
// of mats (at least one, all with the same column count R, first varying
// slowest) into dst, a packed row-major (Π rows)×R buffer of exactly that
// length. It does not allocate for up to 16 matrices.
func KhatriRaoTo(dst []float64, mats []blas64.General) {
	R := mats[0].Cols
	rows := 1
	for _, m := range mats {
		if m.Cols != R {
			panic("tensor: Khatri–Rao factors have different column counts")
		}
		rows *= m.Rows
	}
	if len(dst) != rows*R {
		panic("tensor: Khatri–Rao destination has the wrong length")
	}
	switch len(mats) {
	case 1:
		a := mats[0]
		for i := range a.Rows {
			copy(dst[i*R:(i+1)*R], a.Data[i*a.Stride:i*a.Stride+R])
		}
		return
	case 2:
		a, b := mats[0], mats[1]
		p := 0
		for i := range a.Rows {
			ai := a.Data[i*a.Stride : i*a.Stride+R]
			for k := range b.Rows {
				bk := b.Data[k*b.Stride : k*b.Stride+R]
				d := dst[p : p+R]
				for r := range d {
					d[r] = ai[r] * bk[r]
				}
				p += R
			}
		}
		return
	}
	// General case: the leading matrices' product is built recursively on
	// top of the last two (an odometer over the leading indices).
	var idxBuf [16]int
	var idx []int
	if len(mats) <= len(idxBuf) {
		idx = idxBuf[:len(mats)-2]
	} else {
		idx = make([]int, len(mats)-2)
	}
	tail := mats[len(mats)-2].Rows * mats[len(mats)-1].Rows * R
	for p := 0; p < len(dst); p += tail {
		blk := dst[p : p+tail]
		KhatriRaoTo(blk, mats[len(mats)-2:])
		for j, i := range idx {
			m := mats[j]
			mi := m.Data[i*m.Stride : i*m.Stride+R]
			for q := 0; q < len(blk); q += R {
				d := blk[q : q+R]
				for r := range d {
					d[r] *= mi[r]
				}
			}
		}
		for j := len(idx) - 1; j >= 0; j-- {
			idx[j]++
			if idx[j] < mats[j].Rows {
				break
			}
			idx[j] = 0
		}
	}
}

// ModeProduct returns the n-mode product Y = X ×_n U of t with the J × I_n
// matrix U: Y has side J in mode n and Y_(n) = U · X_(n), that is
// Y[…, j, …] = Σ_i U[j, i] · X[…, i, …]. It panics if U's column count is
// not I_n.
func (t *Dense) ModeProduct(n int, U mat.Matrix) *Dense {
	if n < 0 || n >= len(t.shape) {
		panic("tensor: mode out of range")
	}
	J, I := U.Dims()
	if I != t.shape[n] {
		panic("tensor: n-mode product dimension mismatch")
	}
	u := asGeneral(U)
	shape := append([]int(nil), t.shape...)
	shape[n] = J
	y := Zeros(shape...)
	before, after := split(t.shape, n)
	// For each leading index l, Y[l] (J × after) = U (J × I) · X[l] (I × after).
	for l := range before {
		x := blas64.General{Rows: I, Cols: after, Stride: after, Data: t.data[l*I*after : (l+1)*I*after]}
		c := blas64.General{Rows: J, Cols: after, Stride: after, Data: y.data[l*J*after : (l+1)*J*after]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, u, x, 0, c)
	}
	return y
}
