package gauss

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
)

// FuzzDecodeGauss feeds mutated model states through the decoder and,
// when one decodes, scores rows with it: a crafted state must give an
// error, never a panic, in decode or in Score. The corpus starts from
// real states of both forms (a full factor from 30 × 3 rows, the low-rank
// form from 2 × 3 rows) and from states whose sizes wrap: N·d with
// N = 2⁶² and d = 4 is 0 in 64 bits, the length of an empty row array.
//
//	go test -run '^$' -fuzz FuzzDecodeGauss -fuzztime 5m ./gauss
func FuzzDecodeGauss(f *testing.F) {
	for _, X := range []*mat.Dense{testmat.NormalSeed(30, 3, 1), testmat.NormalSeed(2, 3, 1)} {
		g, err := New(Config{})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(detectortest.FittedState(f, g, X))
	}
	for _, s := range []state{
		{Mean: make([]float64, 4), N: 1 << 62, A: 1, C: 1},
		{Mean: make([]float64, 4), N: 1 << 62, XC: make([]float64, 4), A: 1, C: 1},
		{Mean: make([]float64, 4), U: make([]float64, 4)},
		{Mean: []float64{0}, U: []float64{math.Inf(1)}},
	} {
		b, err := method.EncodeState("gauss", s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	g, err := New(Config{})
	if err != nil {
		f.Fatal(err)
	}
	Q := testmat.NormalSeed(5, 3, 2)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := g.decode(b, 3)
		if err != nil {
			return
		}
		if len(m.mean) != 3 {
			t.Fatalf("decoded a model of %d columns for 3", len(m.mean))
		}
		detectortest.ScoresDecoded(t, m.Score, Q)
	})
}
