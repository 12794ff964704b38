package csr

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"
)

func TestBuilderAndAccess(t *testing.T) {
	b := NewBuilder(0)
	if err := b.AddRow([]int{2, 0}, []float64{3, 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.AddRow(nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.AddRow([]int{1, 1}, []float64{1, 2}); err == nil {
		t.Fatal("repeated column accepted")
	}
	if err := b.AddRow([]int{1, 3}, []float64{5, 0}); err != nil {
		t.Fatal(err)
	}
	m := b.Build(0)
	r, c := m.Dims()
	if r != 3 || c != 3 { // column 3 held only a zero, which is dropped
		t.Fatalf("dims %d×%d, want 3×3", r, c)
	}
	want := mat.NewDense(3, 3, []float64{1, 0, 3, 0, 0, 0, 0, 5, 0})
	if !mat.Equal(m, want) || !mat.Equal(m.ToDense(), want) {
		t.Fatalf("got %v", mat.Formatted(m))
	}
	if m.NNZ() != 3 {
		t.Fatalf("nnz %d", m.NNZ())
	}
	s := SliceRows(m, 1, 3)
	if !mat.Equal(s, want.Slice(1, 3, 0, 3)) {
		t.Fatalf("slice %v", mat.Formatted(s))
	}
	sub := Subset(m, []int{2, 0, 2})
	wantSub := mat.NewDense(3, 3, []float64{0, 5, 0, 1, 0, 3, 0, 5, 0})
	if !mat.Equal(sub, wantSub) {
		t.Fatalf("subset %v", mat.Formatted(sub))
	}
	if err := Check(m); err != nil {
		t.Fatal(err)
	}
	if err := Check(sparse.NewCSR(1, 2, []int{0, 1}, []int{2}, []float64{1})); err == nil {
		t.Fatal("column 2 of a 2-column matrix passed the check")
	}
}

func TestMulDense(t *testing.T) {
	x := mat.NewDense(2, 3, []float64{1, 0, 2, 0, 0, -1})
	b := NewBuilder(3)
	b.AddRow([]int{0, 2}, []float64{1, 2})
	b.AddRow([]int{2}, []float64{-1})
	m := b.Build(0)
	w := mat.NewDense(4, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 0, 1})
	got := mat.NewDense(2, 4, nil)
	MulDenseT(got, m, w)
	var want mat.Dense
	want.Mul(x, w.T())
	if !mat.EqualApprox(got, &want, 1e-15) {
		t.Fatalf("got %v want %v", mat.Formatted(got), mat.Formatted(&want))
	}
	var wt mat.Dense
	wt.CloneFrom(w.T())
	got2 := mat.NewDense(2, 4, nil)
	got2.Set(0, 0, 99) // MulDense overwrites, it does not accumulate
	MulDense(got2, m, &wt)
	if !mat.EqualApprox(got2, &want, 1e-15) {
		t.Fatalf("MulDense: got %v want %v", mat.Formatted(got2), mat.Formatted(&want))
	}
}

// Canonical sorts rows and sums repeats of a CSR built from raw arrays, and
// converts james-bowman's other formats without going dense.
func TestCanonical(t *testing.T) {
	want := mat.NewDense(2, 4, []float64{0, 3, 0, 1, 5, 0, 0, 0})
	raw := sparse.NewCSR(2, 4, []int{0, 3, 5}, []int{3, 1, 1, 0, 0}, []float64{1, 1, 2, 2, 3})
	m, ok := Canonical(raw)
	if !ok || !mat.Equal(m, want) {
		t.Fatalf("canonical %v", mat.Formatted(m))
	}
	if ind, _ := Row(m, 0); fmt.Sprint(ind) != "[1 3]" {
		t.Fatalf("row 0 indices %v, want [1 3]", ind)
	}
	if m2, _ := Canonical(m); m2 != m {
		t.Fatal("a canonical matrix was copied")
	}
	dok := sparse.NewDOK(2, 4)
	dok.Set(0, 3, 1)
	dok.Set(0, 1, 3)
	dok.Set(1, 0, 5)
	for name, X := range map[string]mat.Matrix{"dok": dok, "coo": dok.ToCOO(), "csc": dok.ToCSC()} {
		m, ok := Canonical(X)
		if !ok || !mat.Equal(m, want) {
			t.Fatalf("%s: canonical %v", name, mat.Formatted(m))
		}
		if _, v := Row(m, 0); len(v) != 2 {
			t.Fatalf("%s: row 0 holds %d values", name, len(v))
		}
	}
	if _, ok := Canonical(want); ok {
		t.Fatal("a dense matrix was taken as sparse")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "out of range") {
			t.Fatalf("a column index past the width: recovered %v, want a panic naming it", r)
		}
	}()
	Canonical(sparse.NewCSR(1, 2, []int{0, 1}, []int{5}, []float64{1}))
}

func ExampleBuilder() {
	b := NewBuilder(4)
	b.AddRow([]int{3, 0}, []float64{-2, 1.5})
	b.AddRow([]int{1}, []float64{4})
	m := b.Build(0)
	r, c := m.Dims()
	ind, val := Row(m, 0)
	fmt.Println(r, c, m.NNZ(), ind, val)
	// Output: 2 4 3 [0 3] [1.5 -2]
}

// Random draws distinct sorted columns per row, within range, seeded.
func TestRandom(t *testing.T) {
	m := Random(50, 30, 7, 3)
	if err := Check(m); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		ind, _ := Row(m, i)
		if len(ind) != 7 || !slices.IsSorted(ind) || slices.Compact(slices.Clone(ind))[6] != ind[6] {
			t.Fatalf("row %d: indices %v, want 7 distinct sorted", i, ind)
		}
	}
	if !mat.Equal(m, Random(50, 30, 7, 3)) || mat.Equal(m, Random(50, 30, 7, 4)) {
		t.Error("Random is not a function of its seed")
	}
}
