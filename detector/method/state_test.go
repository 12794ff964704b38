package method

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/param"
)

// TestEncodeDecodeState round-trips a state through EncodeState and
// DecodeState, and checks that a truncated state is an error naming the
// method.
func TestEncodeDecodeState(t *testing.T) {
	type state struct {
		N int
		X []float64
	}
	in := state{N: 3, X: []float64{1, -2.5, math.MaxFloat64}}
	b, err := EncodeState("m", in)
	if err != nil {
		t.Fatal(err)
	}
	var out state
	if err := DecodeState("m", b, &out); err != nil {
		t.Fatal(err)
	}
	if out.N != in.N || !slices.Equal(out.X, in.X) {
		t.Errorf("decoded %+v, want %+v", out, in)
	}
	err = DecodeState("m", b[:len(b)/2], &out)
	if err == nil || !strings.HasPrefix(err.Error(), "m: decoding state: ") {
		t.Errorf("truncated state: error %v, want one starting with %q", err, "m: decoding state: ")
	}
}

func TestFinite(t *testing.T) {
	for _, tc := range []struct {
		vs   [][]float64
		want bool
	}{
		{nil, true},
		{[][]float64{nil, {}}, true},
		{[][]float64{{0, -1, math.MaxFloat64}, {math.SmallestNonzeroFloat64}}, true},
		{[][]float64{{0}, {1, math.NaN()}}, false},
		{[][]float64{{math.Inf(-1)}, {0}}, false},
		{[][]float64{{math.Inf(1)}}, false},
	} {
		if got := Finite(tc.vs...); got != tc.want {
			t.Errorf("Finite(%v) = %v, want %v", tc.vs, got, tc.want)
		}
	}
}

// nopModel is a model that scores nothing, for tests of Base's state.
type nopModel struct{}

func (nopModel) Score(context.Context, []float64, mat.Matrix) error { return nil }
func (nopModel) MarshalBinary() ([]byte, error)                     { return nil, nil }

type nopConfig struct{ Common }

func (*nopConfig) Bind(*param.Set) {}

// TestInfiniteThresholdRefused: Fit never sets an infinite threshold, so a
// model state holding one (crafted, or damaged past its checksum) is
// refused on load, as is an Adopt of one.
func TestInfiniteThresholdRefused(t *testing.T) {
	b, err := NewBase("m", &nopConfig{Common{Scale: "none"}}, Hooks[nopModel]{
		Fit:    func(context.Context, *Fitting) (nopModel, []float64, error) { return nopModel{}, nil, nil },
		Decode: func([]byte, int) (nopModel, error) { return nopModel{}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	shared := func(th float64) []byte {
		s, err := EncodeState("m", baseState{Dim: 2, Threshold: th, Rule: "none"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, th := range []float64{math.Inf(1), math.Inf(-1), math.NaN()} {
		if err := b.UnmarshalModel(nil, shared(th), nil); err == nil {
			t.Errorf("threshold %v: state loaded", th)
		}
		if err := b.Adopt(nopModel{}, nil, 2, th); err == nil {
			t.Errorf("threshold %v: adopted", th)
		}
	}
	if err := b.UnmarshalModel(nil, shared(1.5), nil); err != nil {
		t.Errorf("finite threshold: %v", err)
	}
}
