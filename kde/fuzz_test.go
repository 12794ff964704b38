package kde

import (
	"math"
	"testing"

	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/scale"
)

// FuzzDecodeKDE feeds mutated model states through the decoder of the
// exact and of the tree scorer and, when one decodes, scores rows with
// it: a crafted state must give an error, never a panic, in Decode or in
// Score. The corpus starts from real states (a fit of 30 × 3 rows, for
// each scorer) and from states whose sizes wrap: N·D with N = 2⁶² and
// D = 4 is 0 in 64 bits, the length of an empty row array.
//
//	go test -run '^$' -fuzz FuzzDecodeKDE -fuzztime 5m ./kde
func FuzzDecodeKDE(f *testing.F) {
	X := testmat.NormalSeed(30, 3, 1)
	for _, alg := range []Algorithm{Exact, Tree} {
		f.Add(fittedState(f, Config{Algorithm: alg, LeafSize: 4}, X), uint8(alg))
	}
	for _, s := range []state{
		{H: 1, Mean: make([]float64, 4), N: 1 << 62, D: 4},
		{H: 1, Mean: make([]float64, 4), N: 1 << 62, D: 4, X: make([]float64, 4)},
		{H: 1, Mean: []float64{0}, N: 1, D: 1, X: []float64{math.Inf(1)}},
		{H: math.NaN(), Mean: []float64{0}, N: 1, D: 1, X: []float64{0}},
	} {
		b, err := method.EncodeState("kde", s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(Exact))
		f.Add(b, uint8(Tree))
	}
	decoders := map[Algorithm]*KDE{}
	for _, alg := range []Algorithm{Exact, Tree} {
		k, err := New(Config{Algorithm: alg, LeafSize: 4, Common: method.Common{Scale: scale.None}})
		if err != nil {
			f.Fatal(err)
		}
		decoders[alg] = k
	}
	Q := testmat.NormalSeed(5, 3, 2)
	f.Fuzz(func(t *testing.T, b []byte, alg uint8) {
		k := decoders[Exact]
		if alg%2 == 0 {
			k = decoders[Tree]
		}
		m, err := k.decode(b, 3)
		if err != nil {
			return
		}
		if n, d := m.x.Dims(); d != 3 || n < 1 {
			t.Fatalf("decoded a model of %d × %d rows for 3 columns", n, d)
		}
		detectortest.ScoresDecoded(t, m.Score, Q)
	})
}
