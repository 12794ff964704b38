package kernel

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
)

// chunked returns X as Rows read in chunks of size rows (the last one
// shorter), with rows by index copied from X; passes counts the passes.
func chunked(X mat.Matrix, size int, passes *int) Rows {
	n, d := X.Dims()
	return Rows{N: n, Cols: d,
		Pass: func(fn func(X mat.Matrix) error) error {
			*passes++
			for lo := 0; lo < n; lo += size {
				if err := fn(csr.Rows(X, lo, min(n, lo+size))); err != nil {
					return err
				}
			}
			return nil
		},
		Read: func(idx []int) (mat.Matrix, error) {
			if s, ok := X.(*sparse.CSR); ok {
				return csr.Subset(s, idx), nil
			}
			out := mat.NewDense(len(idx), d, nil)
			for k, i := range idx {
				mat.Row(out.RawRowView(k), i, X)
			}
			return out, nil
		}}
}

// TestWidthRowsEqualsWidth: every width rule gives the same γ, bit for
// bit, on rows read in chunks of 1, 7 and 64 rows as on the matrix (dense
// and CSR, 100 rows: the median rule's every pair; 300 rows: sampled
// pairs), with the passes doc.go names (the range check, and two more for
// the scale rules); a column out of range is the same *RangeError.
func TestWidthRowsEqualsWidth(t *testing.T) {
	sparseish := func(n int) *mat.Dense {
		X := testmat.NormalSeed(n, 5, 3)
		X.Apply(func(i, j int, v float64) float64 {
			if (i+2*j)%3 == 0 {
				return 0
			}
			return v + float64(j)
		}, X)
		return X
	}
	big := sparseish(50)
	big.Set(7, 2, 1e200)
	for _, X := range []mat.Matrix{sparseish(100), testmat.CSR(sparseish(100)), sparseish(300), testmat.CSR(sparseish(300)), big, testmat.CSR(big)} {
		n, _ := X.Dims()
		for _, spec := range []Spec{{Gamma: 0.5}, {Rule: ScaleRule}, {Rule: ScaleScottRule}, {Rule: MedianRule}} {
			want, werr := spec.Width(X, rand.NewPCG(1, 1))
			for _, size := range []int{1, 7, 64} {
				passes := 0
				got, err := spec.WidthRows(chunked(X, size, &passes), rand.NewPCG(1, 1))
				if math.Float64bits(got) != math.Float64bits(want) || !reflect.DeepEqual(err, werr) {
					t.Errorf("%T %d rows, %+v, chunks of %d: WidthRows %v (%v), Width %v (%v)", X, n, spec, size, got, err, want, werr)
				}
				wantPasses := 1
				if werr == nil && (spec.Rule == ScaleRule || spec.Rule == ScaleScottRule) {
					wantPasses = 3
				}
				if passes != wantPasses {
					t.Errorf("%+v: %d passes, want %d", spec, passes, wantPasses)
				}
			}
		}
	}
}

// TestCheckRangeWideSparse: 3 rows of 10⁶ columns with 4 non-zeros take
// the map of touched columns (no 10⁶-long arrays) whether they come as
// one matrix or a row at a time, and name the same column: column 500,001
// holds 1e200.
func TestCheckRangeWideSparse(t *testing.T) {
	const d = 1_000_000
	X := sparse.NewCSR(3, d, []int{0, 2, 3, 4}, []int{5, 500_000, 17, 999_999}, []float64{1, 1e200, -2, 3})
	err := CheckRange(X)
	passes := 0
	r, perr := columnRanges(chunked(X, 1, &passes))
	if perr != nil || r.lo != nil || r.wide == nil {
		t.Fatalf("rows one at a time: error %v, arrays %v: want the map of touched columns", perr, r.lo != nil)
	}
	var re *RangeError
	if rerr := r.check(); err == nil || !reflect.DeepEqual(err, rerr) || !asRange(err, &re) || re.Col != 500_000 {
		t.Errorf("CheckRange %v, in passes %v: want column 500,001 named by both", err, rerr)
	}
}

func asRange(err error, re **RangeError) bool {
	e, ok := err.(*RangeError)
	*re = e
	return ok
}

// TestIsolatingSample: rows 0, 1, …, 999 on a line are 1 apart; every
// tenth of them is a sample whose rows are 10 apart, and scaled to the
// 1,000 rows it stands for (squared distances × (100/1000)²) it gives the
// same median exponent, γ, as all the rows.
func TestIsolatingSample(t *testing.T) {
	X := mat.NewDense(1000, 1, nil)
	S := mat.NewDense(100, 1, nil)
	for i := range 1000 {
		X.Set(i, 0, float64(i))
		if i%10 == 0 {
			S.Set(i/10, 0, float64(i))
		}
	}
	for _, gamma := range []float64{1, 40} {
		_, all := Isolating("rbf", X, gamma)
		iso, med := IsolatingSample("rbf", S, 1000, gamma)
		if math.Abs(med-all) > 1e-12*all || iso != (gamma > 36) {
			t.Errorf("γ = %v: the sample gives %v (isolating %v), all rows %v", gamma, med, iso, all)
		}
	}
}
