package detectortest_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
)

// centroid scores a row by its distance to the training mean. Fit makes
// `passes` passes over the data (checking ctx between rows), so a fit can
// be made as long as the Cancel check needs.
type centroid struct {
	c      float64
	passes int
	mean   []float64
	thresh float64
}

func (m *centroid) Fit(ctx context.Context, X mat.Matrix) error {
	if err := detector.CheckMatrix(X, 0); err != nil {
		return err
	}
	r, c := X.Dims()
	mean := make([]float64, c)
	for p := 0; p < m.passes; p++ {
		clear(mean)
		for i := 0; i < r; i++ {
			if i%256 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			for j := 0; j < c; j++ {
				mean[j] += X.At(i, j) / float64(r)
			}
		}
	}
	m.mean = mean
	s, _ := m.Score(nil, X)
	m.thresh = detector.ThresholdFromScores(s, m.c)
	return nil
}

func (m *centroid) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if m.mean == nil {
		return nil, detector.ErrNotFitted
	}
	if err := detector.CheckMatrix(X, len(m.mean)); err != nil {
		return nil, err
	}
	r, c := X.Dims()
	dst = detector.ScoreDst(dst, r)
	for i := 0; i < r; i++ {
		var s float64
		for j := 0; j < c; j++ {
			d := X.At(i, j) - m.mean[j]
			s += d * d
		}
		dst[i] = math.Sqrt(s)
	}
	return dst, nil
}

func (m *centroid) Threshold() float64 { return m.thresh }

func (m *centroid) MarshalBinary() ([]byte, error) {
	if m.mean == nil {
		return nil, detector.ErrNotFitted
	}
	b := binary.LittleEndian.AppendUint64(nil, math.Float64bits(m.thresh))
	for _, v := range m.mean {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b, nil
}

func (m *centroid) UnmarshalBinary(b []byte) error {
	if len(b) < 16 || len(b)%8 != 0 {
		return errors.New("centroid: bad state length")
	}
	m.thresh = math.Float64frombits(binary.LittleEndian.Uint64(b))
	m.mean = make([]float64, len(b)/8-1)
	for i := range m.mean {
		m.mean[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*(i+1):]))
	}
	return nil
}

func init() {
	detector.Register(detector.Method{
		Name: "test-centroid", Summary: "distance to the training mean (detectortest's own test)", Version: 1,
		Params: []detector.Param{{Name: "contamination", Default: "0.1"}, {Name: "passes", Default: "1"}, {Name: "shape", Default: ""}},
		New: func(p *detector.Params) (detector.Detector, error) {
			c := p.Float("contamination", 0.1)
			p.Check(c > 0 && c <= 0.5, "contamination", "must be in (0, 0.5]")
			passes := p.Int("passes", 1)
			p.Ints("shape", nil) // accepted for TestRunShape; the mean ignores it
			p.Check(passes >= 1, "passes", "must be at least 1")
			if err := p.Err(); err != nil {
				return nil, err
			}
			return &centroid{c: c, passes: passes}, nil
		},
	})
}

// TestRun runs the suite on the centroid detector, which is deterministic.
// Its AUC on the held-out Gaussian mixture (three clusters, so the mean is a
// poor model) was 0.8547 in a run of this test; the floor is 0.80. The cancelled fit is 10⁶ passes over 1000 rows: 10⁹
// At calls, minutes of work.
func TestRun(t *testing.T) {
	detectortest.Run(t, "test-centroid", nil, detectortest.Options{
		AUCFloor: 0.80,
		Cancel:   detectortest.Cancel{Rows: 1000, Cols: 8, Params: map[string]string{"passes": "1000000"}},
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
