package testmat

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestCSRKeepsShapeAndNonZeros(t *testing.T) {
	x := Uniform(20, 7, 0.6, rand.NewPCG(3, 1))
	s := CSR(x)
	if r, c := s.Dims(); r != 20 || c != 7 {
		t.Fatalf("CSR dims %d×%d, want 20×7", r, c)
	}
	nnz := 0
	for i := 0; i < 20; i++ {
		for j := 0; j < 7; j++ {
			if x.At(i, j) != 0 {
				nnz++
			}
		}
	}
	if s.NNZ() != nnz {
		t.Errorf("CSR holds %d entries, the matrix %d non-zeros", s.NNZ(), nnz)
	}
	if nnz == 0 || nnz == 140 {
		t.Errorf("Uniform with zeroFrac 0.6 gave %d non-zeros of 140", nnz)
	}
	if d := MaxAbsDiffMat(x, s); d != 0 {
		t.Errorf("CSR differs from its source by %g", d)
	}
	// An all-zero last column still counts in the shape.
	z := Dense([][]float64{{1, 0}, {0, 0}})
	if _, c := CSR(z).Dims(); c != 2 {
		t.Errorf("CSR of a matrix with a zero column has %d columns, want 2", c)
	}
}

func TestNormalIsRowMajorDraws(t *testing.T) {
	x := Normal(3, 4, rand.NewPCG(1, 2))
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			if w := rng.NormFloat64(); x.At(i, j) != w {
				t.Fatalf("Normal(3, 4)[%d,%d] = %v, draw %d is %v", i, j, x.At(i, j), 4*i+j, w)
			}
		}
	}
}

func TestNormalSeed(t *testing.T) {
	if d := MaxAbsDiffMat(NormalSeed(3, 2, 7), Normal(3, 2, rand.NewPCG(7, 7))); d != 0 {
		t.Errorf("NormalSeed(3, 2, 7) differs from Normal with PCG(7, 7) by %g", d)
	}
}

func TestMaxAbsDiffShapes(t *testing.T) {
	if d := MaxAbsDiff([]float64{1, 2}, []float64{1}); !math.IsInf(d, 1) {
		t.Errorf("MaxAbsDiff of unequal lengths = %v, want +Inf", d)
	}
	if d := MaxAbsDiffMat(mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil)); !math.IsInf(d, 1) {
		t.Errorf("MaxAbsDiffMat of unequal shapes = %v, want +Inf", d)
	}
	if d := MaxAbsDiff([]float64{1, math.NaN()}, []float64{1, 0}); !math.IsNaN(d) {
		t.Errorf("MaxAbsDiff with a NaN = %v, want NaN", d)
	}
}

// ColMeans and SqDists on a 2 × 2 matrix worked by hand: the means are
// (2, 3); the rows (1, 2) and (3, 4) are at squared distance 1 + 1 = 2
// from them and at 1 + 4 = 5 and 9 + 16 = 25 from the origin.
func TestColMeansSqDists(t *testing.T) {
	X := Dense([][]float64{{1, 2}, {3, 4}})
	mean := ColMeans(X)
	if mean[0] != 2 || mean[1] != 3 {
		t.Errorf("ColMeans = %v, want [2 3]", mean)
	}
	if d := SqDists(make([]float64, 2), X, mean); d[0] != 2 || d[1] != 2 {
		t.Errorf("SqDists to the mean = %v, want [2 2]", d)
	}
	if d := SqDists(make([]float64, 2), X, []float64{0, 0}); d[0] != 5 || d[1] != 25 {
		t.Errorf("SqDists to the origin = %v, want [5 25]", d)
	}
}

// Float64s reads back what AppendFloat64s wrote, bit for bit, and refuses
// a length that is not a whole, non-zero number of values.
func TestFloat64sRoundTrip(t *testing.T) {
	v := []float64{1.5, -0.0, math.Inf(1), math.SmallestNonzeroFloat64}
	b := AppendFloat64s([]byte{}, v)
	got, ok := Float64s(b)
	if !ok || len(got) != len(v) {
		t.Fatalf("Float64s of %d bytes = %v, %v", len(b), got, ok)
	}
	for i := range v {
		if math.Float64bits(got[i]) != math.Float64bits(v[i]) {
			t.Errorf("value %d: %v, want %v", i, got[i], v[i])
		}
	}
	for _, n := range []int{0, 7, 9} {
		if _, ok := Float64s(make([]byte, n)); ok {
			t.Errorf("Float64s accepted %d bytes", n)
		}
	}
}

// ForEachIndex visits a shape's indices in row-major order, and a shape
// with no modes (a scalar) once.
func TestForEachIndexOrder(t *testing.T) {
	for _, c := range []struct {
		shape []int
		want  string
	}{
		{[]int{2, 3}, "[0 0][0 1][0 2][1 0][1 1][1 2]"},
		{[]int{3}, "[0][1][2]"},
		{nil, "[]"},
	} {
		got := ""
		ForEachIndex(c.shape, func(idx []int) { got += fmt.Sprint(idx) })
		if got != c.want {
			t.Errorf("ForEachIndex(%v) visits %s, want %s", c.shape, got, c.want)
		}
	}
}

func TestReadJSON(t *testing.T) {
	var v struct{ A []float64 }
	ReadJSON(t, filepath.Join("testdata", "example.json"), &v)
	if len(v.A) != 3 || v.A[2] != 3 {
		t.Errorf("ReadJSON: %+v", v)
	}
}

func TestNPYReadsBack(t *testing.T) {
	var data []byte
	for _, v := range []float64{1, 2, 3, 4, 5, 6} {
		data = binary.LittleEndian.AppendUint64(data, math.Float64bits(v))
	}
	for _, tc := range []struct {
		fortran bool
		want    [][]float64
	}{
		{false, [][]float64{{1, 2}, {3, 4}, {5, 6}}},
		{true, [][]float64{{1, 4}, {2, 5}, {3, 6}}},
	} {
		b := NPY("<f8", tc.fortran, []int{3, 2}, data)
		if (len(b)-len(data))%64 != 0 {
			t.Errorf("fortran %v: data starts at byte %d, not a multiple of 64", tc.fortran, len(b)-len(data))
		}
		path := filepath.Join(t.TempDir(), "x.npy")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if d := MaxAbsDiffMat(ReadNPY(t, path), Dense(tc.want)); d != 0 {
			t.Errorf("fortran %v: read back differs by %g", tc.fortran, d)
		}
	}
	if got, want := string(NPY("<i8", false, []int{3}, nil)[10:]), "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }"; got[:len(want)] != want {
		t.Errorf("1-d header %q, want %q", got, want)
	}
}

func TestGolden(t *testing.T) {
	if v := Golden[struct{ A []float64 }](t, "example.json"); len(v.A) != 3 || v.A[2] != 3 {
		t.Errorf("Golden: %+v", v)
	}
}

func TestReadFile(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(ReadFile(t, filepath.Join("testdata", "example.json")))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("ReadFile gave %q (%v), want %q", got, err, want)
	}
}

func TestSkipUnless(t *testing.T) {
	t.Setenv("TESTMAT_SKIP", "1")
	SkipUnless(t, "TESTMAT_SKIP", "never skipped")
	t.Run("unset", func(t *testing.T) {
		t.Setenv("TESTMAT_SKIP", "")
		SkipUnless(t, "TESTMAT_SKIP", "to run this")
		t.Error("SkipUnless did not skip with the variable unset")
	})
}

// meanScorer scores rows by their squared distance to the mean of the rows
// it was fitted on.
type meanScorer struct{ mean []float64 }

func (m *meanScorer) Fit(_ context.Context, X mat.Matrix) error {
	m.mean = ColMeans(X)
	return nil
}

func (m *meanScorer) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	r, _ := X.Dims()
	return SqDists(make([]float64, r), X, m.mean), nil
}

func TestFitScore(t *testing.T) {
	s := FitScore(t, &meanScorer{}, Dense([][]float64{{0, 0}, {2, 2}}), Dense([][]float64{{1, 1}, {1, 3}}))
	if len(s) != 2 || s[0] != 0 || s[1] != 4 {
		t.Errorf("FitScore = %v, want [0 4]", s)
	}
}

// refuser's Fit fails with errRefused.
type refuser struct{}

var errRefused = errors.New("refused")

func (refuser) Fit(context.Context, mat.Matrix) error { return fmt.Errorf("fit: %w", errRefused) }

func TestRejects(t *testing.T) {
	Rejects(t, func() (refuser, error) { return refuser{}, errors.New("bad config") }, nil, nil)
	Rejects(t, func() (refuser, error) { return refuser{}, nil }, Dense([][]float64{{1}}), errRefused)
	Rejects(t, func() (refuser, error) { return refuser{}, nil }, Dense([][]float64{{1}}), nil)
}

// Dense builds a matrix from literal rows, CSR copies it with its zeros
// left out, and MaxAbsDiff compares two results.
func Example() {
	x := Dense([][]float64{
		{1, 0, 2},
		{0, 0, 3},
	})
	s := CSR(x)
	r, c := s.Dims()
	fmt.Println(r, c, s.NNZ())
	fmt.Println(MaxAbsDiff(x.RawRowView(1), []float64{0, 0.5, 3}))
	// Output:
	// 2 3 3
	// 0.5
}
