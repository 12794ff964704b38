package tensor

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

func randTensor(rng *rand.Rand, shape ...int) *Dense {
	t := Zeros(shape...)
	for i := range t.Data() {
		t.Data()[i] = rng.NormFloat64()
	}
	return t
}

func randMat(rng *rand.Rand, r, c int) *mat.Dense {
	return testmat.Random(rng, r, c, (*rand.Rand).NormFloat64)
}

var shapes = [][]int{{4}, {3, 5}, {2, 3, 4}, {3, 1, 4, 2}, {2, 2, 3, 2, 3}}

func TestRowMajorLayout(t *testing.T) {
	x := Zeros(2, 3, 4)
	for i := range x.Data() {
		x.Data()[i] = float64(i)
	}
	// Offset of (i, j, k) in a 2×3×4 row-major array is 12i + 4j + k.
	if got := x.At(1, 2, 3); got != 23 {
		t.Errorf("At(1,2,3) = %v, want 23", got)
	}
	x.Set(-1, 0, 1, 0)
	if x.Data()[4] != -1 {
		t.Errorf("Set(…, 0,1,0) wrote elsewhere")
	}
}

// TestUnfoldDefinition checks Unfold against its defining formula and Fold
// as its inverse, for every mode of several shapes.
func TestUnfoldDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, shape := range shapes {
		x := randTensor(rng, shape...)
		for n := range shape {
			var u mat.Dense
			x.Unfold(&u, n)
			r, c := u.Dims()
			if r != shape[n] || r*c != x.Len() {
				t.Fatalf("%v mode %d: unfolding is %d×%d", shape, n, r, c)
			}
			testmat.ForEachIndex(shape, func(idx []int) {
				col := 0
				for j, i := range idx {
					if j != n {
						col = col*shape[j] + i
					}
				}
				if u.At(idx[n], col) != x.At(idx...) {
					t.Fatalf("%v mode %d: X_(n)[%d,%d] ≠ X%v", shape, n, idx[n], col, idx)
				}
			})
			y, err := Fold(&u, n, shape)
			if err != nil {
				t.Fatal(err)
			}
			if !floats.Equal(y.Data(), x.Data()) {
				t.Errorf("%v mode %d: Fold(Unfold(X)) ≠ X", shape, n)
			}
		}
	}
}

// TestReshapeIsFreeUnfolding: Reshape(1) is X_(0) and Reshape(N−1) is X_(N−1)ᵀ,
// both sharing memory.
func TestReshapeIsFreeUnfolding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randTensor(rng, 3, 4, 5)
	var u0, u2 mat.Dense
	x.Unfold(&u0, 0)
	x.Unfold(&u2, 2)
	if !mat.Equal(x.Reshape(1), &u0) {
		t.Error("Reshape(1) ≠ X_(0)")
	}
	if !mat.Equal(x.Reshape(2).T(), &u2) {
		t.Error("Reshape(N−1)ᵀ ≠ X_(N−1)")
	}
	x.Reshape(1).Set(0, 0, 42)
	if x.At(0, 0, 0) != 42 {
		t.Error("Reshape copied the data")
	}
}

// TestKhatriRaoUnfoldIdentity checks the defining property of the pair of
// conventions: for X = Σ_r a_r^(0) ∘ … ∘ a_r^(N−1),
// X_(n) = A_n · KhatriRao(A_j, j ≠ n in order)ᵀ.
func TestKhatriRaoUnfoldIdentity(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const R = 3
	for _, shape := range shapes[1:] {
		fs := make([]*mat.Dense, len(shape))
		for n, s := range shape {
			fs[n] = randMat(rng, s, R)
		}
		x := Zeros(shape...)
		testmat.ForEachIndex(shape, func(idx []int) {
			s := 0.0
			for r := range R {
				p := 1.0
				for n, i := range idx {
					p *= fs[n].At(i, r)
				}
				s += p
			}
			x.Set(s, idx...)
		})
		for n := range shape {
			var others []mat.Matrix
			for j := range shape {
				if j != n {
					others = append(others, fs[j])
				}
			}
			var kr, want, got mat.Dense
			KhatriRao(&kr, others...)
			want.Mul(fs[n], kr.T())
			x.Unfold(&got, n)
			if !mat.EqualApprox(&got, &want, 1e-12) {
				t.Errorf("%v mode %d: X_(n) ≠ A_n KR(others)ᵀ", shape, n)
			}
		}
	}
}

func TestKhatriRaoRows(t *testing.T) {
	// KR(A, B) row i·rows(B)+k = A[i,:] ⊙ B[k,:] (first factor slowest).
	a := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	b := mat.NewDense(3, 2, []float64{1, 10, 2, 20, 3, 30})
	c := mat.NewDense(1, 2, []float64{-1, 0.5})
	var kr mat.Dense
	KhatriRao(&kr, a, b, c)
	want := mat.NewDense(6, 2, []float64{
		-1, 10, -2, 20, -3, 30,
		-3, 20, -6, 40, -9, 60,
	})
	if !mat.Equal(&kr, want) {
		t.Errorf("KhatriRao =\n%v\nwant\n%v", mat.Formatted(&kr), mat.Formatted(want))
	}
}

func TestModeProduct(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, shape := range shapes {
		x := randTensor(rng, shape...)
		for n := range shape {
			u := randMat(rng, 2, shape[n])
			y := x.ModeProduct(n, u)
			// Y_(n) = U X_(n).
			var xn, yn, want mat.Dense
			x.Unfold(&xn, n)
			y.Unfold(&yn, n)
			want.Mul(u, &xn)
			if !mat.EqualApprox(&yn, &want, 1e-12) {
				t.Errorf("%v mode %d: (X ×_n U)_(n) ≠ U X_(n)", shape, n)
			}
		}
	}
}

func TestInnerNorm(t *testing.T) {
	x, _ := New([]int{2, 2}, []float64{1, 2, 3, 4})
	y, _ := New([]int{2, 2}, []float64{1, 0, -1, 2})
	// 1·1 + 2·0 + 3·(−1) + 4·2 = 6; ‖x‖ = √30.
	if got := Inner(x, y); got != 6 {
		t.Errorf("Inner = %v, want 6", got)
	}
	if got := x.Norm(); math.Abs(got-math.Sqrt(30)) > 1e-15 {
		t.Errorf("Norm = %v, want √30", got)
	}
	// No overflow: entries 1e300 (the squares would overflow).
	big, _ := New([]int{2}, []float64{1e300, 1e300})
	if got := big.Norm(); math.Abs(got/(math.Sqrt2*1e300)-1) > 1e-15 {
		t.Errorf("Norm of large entries = %v", got)
	}
}

func TestRowView(t *testing.T) {
	X := mat.NewDense(3, 6, nil)
	for i := range 3 {
		for j := range 6 {
			X.Set(i, j, float64(10*i+j))
		}
	}
	v, err := RowView(X, 1, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if v.At(1, 2) != 15 {
		t.Errorf("view (1,2) = %v, want 15 (row 1, column 1·3+2)", v.At(1, 2))
	}
	v.Set(-7, 0, 0)
	if X.At(1, 0) != -7 {
		t.Error("RowView copied the row")
	}
	// A view of a sub-matrix (stride ≠ cols) still sees the right row.
	sub := X.Slice(1, 3, 0, 6).(*mat.Dense)
	w, err := RowView(sub, 1, []int{6})
	if err != nil {
		t.Fatal(err)
	}
	if w.At(0) != 20 || w.Len() != 6 {
		t.Errorf("RowView of a slice: got %v", w.Data())
	}
	// Row copies from any matrix.
	c := Zeros(3)
	c.Row(X.T(), 2) // row 2 of Xᵀ = column 2 of X: 2, 12, 22
	if c.At(0) != 2 || c.At(1) != 12 || c.At(2) != 22 {
		t.Errorf("Row of a transpose: %v", c.Data())
	}
}

// TestShapeErrors is must-show 6 for the tensor package: a shape whose
// product differs from the row length (and other bad shapes) is a clear
// *ShapeError.
func TestShapeErrors(t *testing.T) {
	for _, c := range []struct {
		shape []int
		n     int
		msg   string
	}{
		{[]int{24, 51}, 1200, "tensor: shape 24x51 has 1224 elements but the data has 1200 per sample"},
		{[]int{2, 0, 3}, 0, "tensor: shape 2x0x3: side 2 is 0, must be at least 1"},
		{[]int{-1}, 1, "tensor: shape -1: side 1 is -1, must be at least 1"},
		{nil, 5, "tensor: shape : empty shape (order 0)"},
	} {
		err := CheckShape(c.shape, c.n)
		var se *ShapeError
		if !errors.As(err, &se) {
			t.Errorf("CheckShape(%v, %d) = %v, want *ShapeError", c.shape, c.n, err)
			continue
		}
		if err.Error() != c.msg {
			t.Errorf("CheckShape(%v, %d):\n got %q\nwant %q", c.shape, c.n, err, c.msg)
		}
	}
	if err := CheckShape([]int{24, 51}, 1224); err != nil {
		t.Errorf("valid shape rejected: %v", err)
	}
	if _, err := New([]int{2, 3}, make([]float64, 5)); err == nil {
		t.Error("New accepted 5 elements for shape 2x3")
	}
	X := mat.NewDense(2, 10, nil)
	if _, err := RowView(X, 0, []int{3, 3}); err == nil {
		t.Error("RowView accepted shape 3x3 for rows of 10")
	}
	if _, err := Fold(mat.NewDense(3, 4, nil), 0, []int{3, 5}); err == nil {
		t.Error("Fold accepted a 3×4 matrix for shape 3x5")
	}
}

func TestParseShape(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		ok   bool
	}{
		{"24x51", []int{24, 51}, true},
		{"12,10,8", []int{12, 10, 8}, true},
		{" 5 ", []int{5}, true},
		{"3x0", nil, false},
		{"axb", nil, false},
		{"", nil, false},
		{"3x4x", nil, false}, // an empty side (read as 3x4 before)
		{"x3x4", nil, false},
		{"3xx4", nil, false},
		{"3 X 4×2", []int{3, 4, 2}, true},
	} {
		got, err := ParseShape(c.in)
		if (err == nil) != c.ok || (c.ok && fmt.Sprint(got) != fmt.Sprint(c.want)) {
			t.Errorf("ParseShape(%q) = %v, %v", c.in, got, err)
		}
	}
	if s := FormatShape([]int{125, 45}); s != "125x45" {
		t.Errorf("FormatShape = %q", s)
	}
}
