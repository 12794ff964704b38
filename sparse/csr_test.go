package sparse

import (
	"fmt"
	"testing"

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
	s := m.SliceRows(1, 3)
	if !mat.Equal(s, want.Slice(1, 3, 0, 3)) {
		t.Fatalf("slice %v", mat.Formatted(s))
	}
}

func TestMulDenseT(t *testing.T) {
	x := mat.NewDense(2, 3, []float64{1, 0, 2, 0, 0, -1})
	b := NewBuilder(3)
	b.AddRow([]int{0, 2}, []float64{1, 2})
	b.AddRow([]int{2}, []float64{-1})
	m := b.Build(0)
	w := mat.NewDense(4, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, -1, 0, 1})
	got := mat.NewDense(2, 4, nil)
	m.MulDenseT(got, w)
	var want mat.Dense
	want.Mul(x, w.T())
	if !mat.EqualApprox(got, &want, 1e-15) {
		t.Fatalf("got %v want %v", mat.Formatted(got), mat.Formatted(&want))
	}
	var wt mat.Dense
	wt.CloneFrom(w.T())
	got2 := mat.NewDense(2, 4, nil)
	got2.Set(0, 0, 99) // MulDense overwrites, it does not accumulate
	m.MulDense(got2, &wt)
	if !mat.EqualApprox(got2, &want, 1e-15) {
		t.Fatalf("MulDense: got %v want %v", mat.Formatted(got2), mat.Formatted(&want))
	}
}

func ExampleCSR() {
	b := NewBuilder(4)
	b.AddRow([]int{0, 3}, []float64{1.5, -2})
	b.AddRow([]int{1}, []float64{4})
	m := b.Build(0)
	r, c := m.Dims()
	fmt.Println(r, c, m.NNZ(), m.At(0, 3), m.At(1, 0))
	// Output: 2 4 3 -2 0
}
