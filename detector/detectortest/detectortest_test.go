package detectortest_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/param"
)

// centroid scores a row by its distance to the training mean. Fit makes
// `passes` passes over the data (checking ctx between chunks), so a fit
// can be made as long as the Cancel check needs.
type centroid struct {
	method.Base[centroidModel]
	passes int
}

// centroidModel is the fitted training mean.
type centroidModel []float64

type centroidConfig struct {
	Passes int
	Shape  []int // accepted for TestRunShape; the mean ignores it
	method.Common
}

func (c *centroidConfig) Bind(s *param.Set) {
	s.Int(&c.Passes, "passes", 1, param.AtLeast(1), "passes over the data")
	s.Shape(&c.Shape, "shape", false, "sample shape (ignored)")
}

func newCentroid(cfg centroidConfig) (*centroid, error) {
	m := &centroid{}
	b, err := method.NewBase("test-centroid", &cfg, method.Hooks[centroidModel]{Fit: m.fit, Decode: decodeCentroid})
	m.Base, m.passes = b, cfg.Passes // cfg as NewBase resolved it
	return m, err
}

func (m *centroid) fit(ctx context.Context, f *method.Fitting) (centroidModel, []float64, error) {
	r, c := f.Dims()
	mean := make([]float64, c)
	for p := 0; p < m.passes; p++ {
		clear(mean)
		err := f.Scan(ctx, 256, func(lo int, X mat.Matrix) error {
			k, _ := X.Dims()
			for i := range k {
				for j := 0; j < c; j++ {
					mean[j] += X.At(i, j) / float64(r)
				}
			}
			f.Report("mean", p*r+lo+k, m.passes*r)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	model := centroidModel(mean)
	train := make([]float64, r)
	err := f.Scan(ctx, 256, func(lo int, X mat.Matrix) error {
		k, _ := X.Dims()
		return model.Score(ctx, train[lo:lo+k], X)
	})
	return model, train, err
}

func (m centroidModel) Score(_ context.Context, dst []float64, X mat.Matrix) error {
	testmat.SqDists(dst, X, m)
	for i, s := range dst {
		dst[i] = math.Sqrt(s)
	}
	return nil
}

func (m centroidModel) MarshalBinary() ([]byte, error) {
	return testmat.AppendFloat64s(nil, m), nil
}

func decodeCentroid(b []byte, dim int) (centroidModel, error) {
	mean, ok := testmat.Float64s(b)
	if !ok || len(mean) != dim {
		return nil, errors.New("centroid: bad state length")
	}
	return mean, nil
}

func init() {
	method.Register(method.Info{Name: "test-centroid", Summary: "distance to the training mean (detectortest's own test)", Version: 1},
		newCentroid, func(*centroid, method.Op, method.Size) float64 { return 0 })
}

// TestRun runs the suite on the centroid detector, which is deterministic.
// Its AUC on the held-out Gaussian mixture (three clusters, so the mean is a
// poor model) was 0.8547 in a run of this test; the floor is 0.80. The cancelled fit is 10⁶ passes over 1000 rows: 10⁹
// At calls, minutes of work.
func TestRun(t *testing.T) {
	detectortest.Run(t, "test-centroid", nil, detectortest.Options{
		AUCFloor: 0.80,
		Cancel:   detectortest.Cancel{Rows: 1000, Cols: 8, Params: map[string]string{"passes": "1000000"}},
		Refit:    detectortest.Cancel{Params: map[string]string{"passes": "20"}},
	})
}

// The banana set: AUC 0.7466 in a run of this test (the mean of a curved
// cloud is a poor model); the floor is chance, 0.5.
func TestRunBanana(t *testing.T) {
	detectortest.Run(t, "test-centroid", nil, detectortest.Options{
		Data:     "banana",
		Rows:     150,
		AUCFloor: 0.5,
		Cancel:   detectortest.Cancel{Rows: 1000, Cols: 2, Params: map[string]string{"passes": "1000000"}},
		Skip:     map[string]string{"Cancel": "covered by TestRun"},
	})
}

// FlaggedBounds against counts worked by hand: 10 distinct scores at c = 0.1
// give ⌊1⌋..⌈1⌉; at c = 0.25, ⌊2.5⌋..⌈2.5⌉ = 2..3. Ties at the 9th and 10th
// order statistics (two 9s) widen the range by one.
// A tensor shape: the suite draws 12 columns and passes shape=4x3.
func TestRunShape(t *testing.T) {
	detectortest.Run(t, "test-centroid", nil, detectortest.Options{
		Shape: []int{4, 3},
		Skip:  map[string]string{"Cancel": "covered by TestRun"},
	})
}

func TestFlaggedBounds(t *testing.T) {
	for _, tc := range []struct {
		s            []float64
		c            float64
		lo, hi, ties int
	}{
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.1, 1, 1, 0},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.25, 2, 3, 0},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 9, 9, 10}, 0.1, 0, 2, 1},
		{[]float64{1, 1, 1, 1}, 0.5, 0, 4, 3}, // clamped to 0..n
	} {
		lo, hi, ties := detectortest.FlaggedBounds(tc.s, tc.c)
		if lo != tc.lo || hi != tc.hi || ties != tc.ties {
			t.Errorf("%v at %v: %d..%d (%d ties), want %d..%d (%d)", tc.s, tc.c, lo, hi, ties, tc.lo, tc.hi, tc.ties)
		}
	}
}

func ExampleFlaggedBounds() {
	scores := []float64{0.1, 0.4, 0.2, 0.9, 0.3, 0.5, 0.8, 0.6, 0.7, 1.0, 1.1, 1.2}
	lo, hi, ties := detectortest.FlaggedBounds(scores, 0.1)
	fmt.Printf("flagged rows must number %d to %d (%d ties)\n", lo, hi, ties)
	// Output: flagged rows must number 1 to 2 (0 ties)
}
