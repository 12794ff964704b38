package method

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
)

// Expected values are numpy.percentile(s, 100*(1-c)) (linear
// interpolation): for s = 1..10 and c = 0.1 the position is 0.9·9 = 8.1,
// so 9 + 0.1·(10 − 9) = 9.1; for c = 0.25, 0.75·9 = 6.75 → 7.75.
func TestThresholdFromScores(t *testing.T) {
	s := []float64{3, 1, 2, 10, 9, 8, 7, 6, 5, 4}
	for _, c := range []struct{ c, want float64 }{{0.1, 9.1}, {0.25, 7.75}, {0.5, 5.5}} {
		if got := ThresholdFromScores(s, c.c); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("c=%v: got %v, want %v", c.c, got, c.want)
		}
	}
	if s[0] != 3 {
		t.Fatal("scores were modified")
	}
	// +Inf scores (finite-support KDE): the threshold stays finite.
	inf := []float64{1, 2, 3, 4, 5, 6, 7, 8, math.Inf(1), math.Inf(1)}
	if got := ThresholdFromScores(inf, 0.1); got != 8 {
		t.Errorf("with +Inf: got %v, want 8", got)
	}
	// −Inf scores: the threshold is finite, and labels are those of a
	// threshold of −Inf (finite rows flagged, −Inf rows not).
	ninf := []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1), 4}
	th0 := ThresholdFromScores(ninf, 0.5)
	if math.IsInf(th0, 0) {
		t.Errorf("with −Inf: threshold %v", th0)
	}
	if got := Label(nil, ninf, th0); got[0] != 0 || got[3] != 1 {
		t.Errorf("with −Inf: labels %v, want [0 0 0 1]", got)
	}
	// Flagged share on distinct scores: ⌊c·n⌋ or one more.
	n := 1000
	sc := make([]float64, n)
	for i := range sc {
		sc[i] = float64(i*7919%n) + 0.5
	}
	th := ThresholdFromScores(sc, 0.1)
	lab := Label(nil, sc, th)
	var k int
	for _, l := range lab {
		k += l
	}
	if k < 100 || k > 101 {
		t.Errorf("flagged %d of 1000 at c = 0.1", k)
	}
}

func TestCheckMatrix(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{1, 2, 3, math.Inf(-1), 5, 6})
	var ve *detector.ValueError
	if err := CheckMatrix(X, 0); !errors.As(err, &ve) || ve.Row != 1 || ve.Col != 1 {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(CheckMatrix(X, 0).Error(), "row 2, column 2") {
		t.Fatalf("message %q does not name row 2, column 2", CheckMatrix(X, 0))
	}
	var de *detector.DimError
	if err := CheckMatrix(mat.NewDense(1, 2, nil), 3); !errors.As(err, &de) {
		t.Fatalf("got %v", err)
	}
	var ee *detector.EmptyError
	if err := CheckMatrix(&mat.Dense{}, 0); !errors.As(err, &ee) {
		// An empty Dense reports 0×0.
		t.Fatalf("got %v", err)
	}
	// A transposed view has no raw layout: the generic path must find it too.
	if err := CheckMatrix(X.T(), 0); !errors.As(err, &ve) || ve.Row != 1 || ve.Col != 1 {
		t.Fatalf("transpose: %v", err)
	}
}

// The SIMD screen (allFinite) must not miss a single non-finite value at any
// position, in a contiguous matrix longer than its 1024-value chunks and in
// a strided view.
func TestCheckMatrixScreen(t *testing.T) {
	big := mat.NewDense(700, 3, nil) // 2100 values: three chunks
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, pos := range [][2]int{{0, 0}, {341, 1}, {699, 2}} {
			big.Set(pos[0], pos[1], bad)
			var ve *detector.ValueError
			if err := CheckMatrix(big, 0); !errors.As(err, &ve) || ve.Row != pos[0] || ve.Col != pos[1] {
				t.Fatalf("%v at %v: got %v", bad, pos, err)
			}
			view := big.Slice(0, 700, 1, 3) // stride 3, 2 columns
			err := CheckMatrix(view, 0)
			if pos[1] == 0 {
				if err != nil {
					t.Fatalf("%v at %v outside the view: got %v", bad, pos, err)
				}
			} else if !errors.As(err, &ve) || ve.Row != pos[0] || ve.Col != pos[1]-1 {
				t.Fatalf("view, %v at %v: got %v", bad, pos, err)
			}
			big.Set(pos[0], pos[1], 0)
		}
	}
	if err := CheckMatrix(big, 0); err != nil {
		t.Fatal(err)
	}
}
