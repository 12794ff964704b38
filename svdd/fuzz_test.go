package svdd

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/detector/method/oneclass"
	"github.com/kernelad/anomaly/internal/testmat"
)

// fuzzConfigs are the configurations FuzzDecodeSVDD decodes states for
// (the kernel decides how a state scores).
var fuzzConfigs = []map[string]string{
	{"nu": "0.3"},
	{"kernel": "poly", "degree": "2", "nu": "0.3"},
	{"kernel": "laplacian", "scale": "none"},
	{"kernel": "linear", "c": "0.5"},
}

// FuzzDecodeSVDD feeds mutated model states (seeded with states of models
// fitted on dense and sparse rows, one with labelled anomalies, and with
// the wrapped-size expansion of issue 34) through decode, for a column
// count from the shared state, and scores dense and sparse rows with every
// model it accepts: no input may panic, and a model decode accepts must
// score.
func FuzzDecodeSVDD(f *testing.F) {
	X := testmat.Normal(12, 3, rand.NewPCG(4, 4))
	S := mat.DenseCopyOf(X)
	S.Apply(func(_, _ int, v float64) float64 { return max(v, 0) }, S)
	y := make([]int, 12)
	y[3] = 1
	for c, params := range fuzzConfigs {
		for _, train := range []mat.Matrix{X, testmat.CSR(S)} {
			d, err := detector.New("svdd", params)
			if err != nil {
				f.Fatal(err)
			}
			if err := d.(*SVDD).FitLabeled(context.Background(), train, y); err != nil {
				f.Fatal(err)
			}
			md, _ := d.(*SVDD).Model()
			b, err := md.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(c), int64(3), b)
		}
	}
	wrapped, err := method.EncodeState("svdd", state{Gap: 0.5,
		Exp: oneclass.State{D: 1 << 62, Coef: []float64{0.5, 0.5, 0.5, -0.5}, Gamma: 1}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(0), int64(1)<<62, wrapped)
	f.Fuzz(func(t *testing.T, c uint8, dim int64, data []byte) {
		d, err := detector.New("svdd", fuzzConfigs[int(c)%len(fuzzConfigs)])
		if err != nil {
			t.Fatal(err)
		}
		md, err := d.(*SVDD).decode(data, int(dim))
		if err != nil {
			return
		}
		for _, Q := range testmat.ScoreRows(int(dim)) {
			r, _ := Q.Dims()
			if err := md.Score(context.Background(), make([]float64, r), Q); err != nil {
				t.Fatalf("a decoded model of %d columns does not score %T rows: %v", dim, Q, err)
			}
		}
	})
}
