package scale

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/kernelad/anomaly/internal/csr"
	"gonum.org/v1/gonum/mat"
)

// chunked returns X as Rows read in chunks of k rows, counting passes.
func chunked(X mat.Matrix, k int, passes *int) Rows {
	r := rowsOf(X)
	n, _ := X.Dims()
	whole := csr.Input(X)
	r.Pass = func(fn func(X mat.Matrix) error) error {
		*passes++
		for lo := 0; lo < n; lo += k {
			if err := fn(csr.Rows(whole, lo, min(n, lo+k))); err != nil {
				return err
			}
		}
		return nil
	}
	return r
}

// A stage fitted on rows read in chunks equals the stage fitted on the
// same rows in one matrix, bit for bit, for every rule, dense and sparse
// (wide sparse rows take the compact stage).
func TestFitRowsEqualsFitShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dense := mat.NewDense(1000, 6, nil)
	for i := range 1000 {
		for j := range 6 {
			dense.Set(i, j, rng.NormFloat64()*float64(j+1)+float64(j))
		}
	}
	sparseNarrow := csr.Random(1000, 6, 2500, 7)
	sparseWide := csr.Random(300, 5000, 900, 8)
	for _, tc := range []struct {
		name  string
		X     mat.Matrix
		shape []int
	}{
		{"dense", dense, []int{2, 3}},
		{"sparse", sparseNarrow, nil},
		{"sparse wide", sparseWide, nil},
	} {
		for _, rule := range Rules {
			want, err := FitShape(rule, tc.X, tc.shape)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.name, rule, err)
			}
			for _, k := range []int{1, 7, 256} {
				var passes int
				got, err := FitRows(rule, chunked(tc.X, k, &passes), tc.shape)
				if err != nil {
					t.Fatalf("%s %s, chunks of %d: %v", tc.name, rule, k, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %s, chunks of %d: stage differs from FitShape's", tc.name, rule, k)
				}
			}
		}
	}
}
