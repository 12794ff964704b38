package ocsvm

import (
	"context"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/detector/method/oneclass"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/kernel"
)

// fuzzConfigs are the configurations FuzzDecodeOCSVM decodes states
// for: a state is read by a detector built with its saved parameters, and
// the kernel decides what the state must hold.
var fuzzConfigs = []map[string]string{
	{"nu": "0.3"},
	{"kernel": "poly", "degree": "2", "nu": "0.3"},
	{"kernel": "laplacian", "scale": "none"},
	{"kernel": "linear"},
	{"kernel": "precomputed"},
}

// FuzzDecodeOCSVM feeds mutated model states (seeded with states of
// models fitted on dense and sparse rows, and with the wrapped-size
// expansion of issue 34) through decode, for a column count from the
// shared state, and scores dense and sparse rows with every model it
// accepts: no input may panic, and a model decode accepts must score.
func FuzzDecodeOCSVM(f *testing.F) {
	X := testmat.Normal(12, 3, rand.NewPCG(4, 4))
	for c, params := range fuzzConfigs {
		trains := []mat.Matrix{X, testmat.CSR(positive(X))}
		if params["kernel"] == "precomputed" {
			trains = []mat.Matrix{rbfGram(X, 0.5)}
		}
		for _, train := range trains {
			d, err := detector.New("ocsvm", params)
			if err != nil {
				f.Fatal(err)
			}
			if err := d.Fit(context.Background(), train); err != nil {
				f.Fatal(err)
			}
			md, _ := d.(*OCSVM).Model()
			b, err := md.MarshalBinary()
			if err != nil {
				f.Fatal(err)
			}
			_, dim := train.Dims()
			f.Add(uint8(c), int64(dim), b)
		}
	}
	f.Add(uint8(0), int64(1)<<62, wrappedState(f))
	f.Fuzz(func(t *testing.T, c uint8, dim int64, data []byte) {
		d, err := detector.New("ocsvm", fuzzConfigs[int(c)%len(fuzzConfigs)])
		if err != nil {
			t.Fatal(err)
		}
		md, err := d.(*OCSVM).decode(data, int(dim))
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

// wrappedState is issue 34's crafted state: support vector width 2⁶², four
// coefficients and no support vector values (4·2⁶² wraps to 0).
func wrappedState(tb testing.TB) []byte {
	b, err := method.EncodeState("ocsvm", state{NTrain: 4, Rho: 1,
		Exp: oneclass.State{D: 1 << 62, Coef: []float64{0.25, 0.25, 0.25, 0.25}, Gamma: 1}})
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// positive returns a copy of X with its negative entries zeroed: about
// half the entries, for a sparse matrix.
func positive(X *mat.Dense) *mat.Dense {
	Y := mat.DenseCopyOf(X)
	Y.Apply(func(_, _ int, v float64) float64 { return max(v, 0) }, Y)
	return Y
}

// rbfGram returns the kernel matrix of the rows of X for the RBF kernel
// of width gamma.
func rbfGram(X *mat.Dense, gamma float64) *mat.Dense {
	n, _ := X.Dims()
	k := kernel.RBF{Gamma: gamma}
	K := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			K.Set(i, j, k.Eval(X.RawRowView(i), X.RawRowView(j)))
		}
	}
	return K
}
