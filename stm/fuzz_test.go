package stm

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/testmat"
)

// fuzzRows are the rows the decode fuzzers' models are fitted on and
// score: 30 samples of shape 3x2.
func fuzzRows() *mat.Dense { return testmat.Normal(30, 6, rand.NewPCG(3, 4)) }

// fitted returns a detector of the named method fitted on fuzzRows with
// small settings, and its model's state.
func fitted(tb testing.TB, name string, params map[string]string) (detector.Detector, []byte) {
	tb.Helper()
	d, err := detector.New(name, params)
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.Fit(context.Background(), fuzzRows()); err != nil {
		tb.Fatal(err)
	}
	var state []byte
	switch m := d.(type) {
	case *OneSTM:
		mod, _ := m.Model()
		state, err = mod.MarshalBinary()
	case *R1STM:
		mod, _ := m.Model()
		state, err = mod.MarshalBinary()
	case *R1SVM:
		mod, _ := m.Model()
		state, err = mod.MarshalBinary()
	}
	if err != nil {
		tb.Fatal(err)
	}
	return d, state
}

// addStates seeds f with each state, a truncated copy and copies with a
// byte flipped near the start (where the sizes are) and in the middle.
func addStates(f *testing.F, states ...[]byte) {
	for _, s := range states {
		f.Add(s)
		f.Add(s[:len(s)/2])
		for _, at := range []int{8, 16, 24, len(s) / 2} {
			if at < len(s) {
				c := append([]byte(nil), s...)
				c[at] ^= 0x40
				f.Add(c)
			}
		}
	}
	f.Add([]byte{})
}

// decodeThenScore is the body of the decode fuzzers: a state that
// decodes must score rows of dim columns (into NaN at worst, which
// Base reports as an error), and every refusal is a one-line error.
func decodeThenScore[M interface {
	Score(ctx context.Context, dst []float64, X mat.Matrix) error
}](t *testing.T, decode func([]byte, int) (M, error), data []byte, dim int) {
	m, err := decode(data, dim)
	if err != nil {
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("multi-line error %q", err)
		}
		return
	}
	X := fuzzRows()
	if _, c := X.Dims(); c != dim {
		t.Fatalf("fuzzRows have %d columns, the model %d", c, dim)
	}
	dst := make([]float64, 30)
	if err := m.Score(context.Background(), dst, X); err != nil {
		t.Fatalf("a decoded model fails to score: %v", err)
	}
}

// FuzzDecodeOneSTM feeds mutated 1stm states (seeded with real ones, rank
// 1 and 2) through Decode and, when they decode, Score.
func FuzzDecodeOneSTM(f *testing.F) {
	d, s1 := fitted(f, "1stm", map[string]string{"shape": "3x2"})
	_, s2 := fitted(f, "1stm", map[string]string{"shape": "3x2", "rank": "2"})
	addStates(f, s1, s2)
	m := d.(*OneSTM)
	f.Fuzz(func(t *testing.T, data []byte) { decodeThenScore(t, m.decode, data, 6) })
}

// FuzzDecodeR1STM feeds mutated r1stm states, of the concat and the
// permode construction, through the decoder of either construction and,
// when they decode, Score.
func FuzzDecodeR1STM(f *testing.F) {
	dc, s1 := fitted(f, "r1stm", map[string]string{"shape": "3x2", "features": "16"})
	dp, s2 := fitted(f, "r1stm", map[string]string{"shape": "3x2", "features": "16", "construction": "permode", "mode_features": "4"})
	addStates(f, s1, s2)
	concat, permode := dc.(*R1STM), dp.(*R1STM)
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeThenScore(t, concat.decode, data, 6)
		decodeThenScore(t, permode.decode, data, 6)
	})
}

// FuzzDecodeR1SVM feeds mutated r1svm states through Decode and, when
// they decode, Score.
func FuzzDecodeR1SVM(f *testing.F) {
	d, s := fitted(f, "r1svm", map[string]string{"features": "16"})
	addStates(f, s)
	m := d.(*R1SVM)
	f.Fuzz(func(t *testing.T, data []byte) { decodeThenScore(t, m.decode, data, 6) })
}
