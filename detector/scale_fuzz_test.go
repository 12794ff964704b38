package detector_test

import (
	"context"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	_ "github.com/kernelad/anomaly/stm" // registers 1stm, r1stm, r1svm
)

// scaleMethods are the methods FuzzScale fits, with small settings and the
// parameter that sets each one's width.
var scaleMethods = []struct {
	name, width string
	params      map[string]string
}{
	{"expose", "gamma", map[string]string{"features": "16", "seed": "1"}},
	{"kde", "bandwidth", map[string]string{}},
	{"kpca", "gamma", map[string]string{"components": "3"}},
	{"ocsvm", "gamma", map[string]string{}},
	{"svdd", "gamma", map[string]string{}},
	{"r1svm", "gamma", map[string]string{"features": "16"}},
	{"r1stm", "gamma", map[string]string{"features": "16", "shape": "3x2"}},
	{"1stm", "gamma", map[string]string{"shape": "3x2"}},
}

// FuzzScale fits every method on data measured in units of 10^unit (each
// column with its own extra factor 10^skew·j and offset), with the width
// set to 10^width or left to its rule, under a scale rule, and scores
// held-out rows of the same data. Every run must end in a clean, one-line
// error or a model whose threshold and scores are numbers: never a panic,
// never NaN. Scores are finite, except that a density method may give
// +Inf (−log of a density that is 0 in float64) to a held-out row.
func FuzzScale(f *testing.F) {
	for m := range scaleMethods {
		for _, unit := range []int16{0, 300, -300, 155, -155} {
			f.Add(uint8(m), unit, int16(0), int16(0), uint8(0), uint64(1))
			f.Add(uint8(m), unit, int16(0), int16(0), uint8(1), uint64(2))
		}
		for _, w := range []int16{300, -300, 160, -160} {
			f.Add(uint8(m), int16(0), int16(0), w, uint8(0), uint64(3))
		}
		f.Add(uint8(m), int16(100), int16(50), int16(0), uint8(2), uint64(4))
	}
	rules := []string{"none", "standard", "robust", "minmax"}
	f.Fuzz(func(t *testing.T, mi uint8, unit, skew, width int16, rule uint8, seed uint64) {
		m := scaleMethods[int(mi)%len(scaleMethods)]
		clamp := func(v int16) int { return max(-320, min(320, int(v))) }
		u, sk, w := clamp(unit), clamp(skew)/6, clamp(width)
		rng := rand.New(rand.NewPCG(seed, 7))
		const n, d = 40, 6
		X := mat.NewDense(2*n, d, nil)
		for j := 0; j < d; j++ {
			f := math.Pow(10, float64(u+sk*j))
			off := rng.NormFloat64() * f * 100
			for i := 0; i < 2*n; i++ {
				X.Set(i, j, off+rng.NormFloat64()*f)
			}
		}
		if !finiteMatrix(X) {
			return // the data itself is not representable: nothing to test
		}
		params := map[string]string{"scale": rules[int(rule)%len(rules)]}
		for k, v := range m.params {
			params[k] = v
		}
		if width != 0 {
			params[m.width] = strconv.FormatFloat(math.Pow(10, float64(w)), 'g', -1, 64)
			if math.IsInf(math.Pow(10, float64(w)), 0) || math.Pow(10, float64(w)) == 0 {
				return
			}
		}
		det, err := detector.New(m.name, params)
		if err != nil {
			oneLine(t, err)
			return
		}
		train := X.Slice(0, n, 0, d)
		if err := det.Fit(context.Background(), train); err != nil {
			oneLine(t, err)
			return
		}
		if th := det.Threshold(); math.IsNaN(th) || math.IsInf(th, 0) {
			t.Fatalf("%s %v: threshold %v", m.name, params, th)
		}
		for _, part := range []mat.Matrix{train, X.Slice(n, 2*n, 0, d)} {
			sc, err := det.Score(nil, part)
			if err != nil {
				oneLine(t, err)
				continue
			}
			for i, v := range sc {
				if math.IsNaN(v) || math.IsInf(v, -1) || (math.IsInf(v, 1) && m.name != "kde") {
					t.Fatalf("%s %v: score %d is %v", m.name, params, i, v)
				}
			}
		}
	})
}

func oneLine(t *testing.T, err error) {
	t.Helper()
	if strings.ContainsAny(err.Error(), "\n\r") || strings.Contains(err.Error(), "NaN") {
		t.Fatalf("error %q is not one clean line", err)
	}
}

func finiteMatrix(X *mat.Dense) bool {
	for _, v := range X.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
