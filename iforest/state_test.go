package iforest

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
)

// smallModel fits 3 trees of 8 rows on 40 × 3 rows: a real state, small
// enough for the fuzzer to mutate.
func smallModel(tb testing.TB) (*model, *mat.Dense) {
	tb.Helper()
	X := testmat.NormalSeed(40, 3, 11)
	f, err := New(Config{Trees: 3, Samples: 8, Src: rand.NewPCG(2, 2)})
	if err != nil {
		tb.Fatal(err)
	}
	if err := f.Fit(context.Background(), X); err != nil {
		tb.Fatal(err)
	}
	m, _ := f.Model()
	return m, X
}

// TestDecodeRejects: states whose trees a fit cannot grow are refused by
// decode, each for the reason its comment gives, and none panics; the
// fitted state itself decodes to the same scores.
func TestDecodeRejects(t *testing.T) {
	m, X := smallModel(t)
	good, _ := m.MarshalBinary()
	back, err := decode(good, 3)
	if err != nil {
		t.Fatalf("decode of a fitted state: %v", err)
	}
	want, got := make([]float64, 40), make([]float64, 40)
	_ = m.Score(context.Background(), want, X)
	_ = back.Score(context.Background(), got, X)
	if !slices.Equal(got, want) {
		t.Fatal("a decoded model scores differently")
	}
	inner := slices.IndexFunc(m.trees[0], func(nd node) bool { return nd.Left >= 0 })
	leaf := slices.IndexFunc(m.trees[0], func(nd node) bool { return nd.Left < 0 })
	if inner != 0 || leaf < 1 {
		t.Fatalf("first tree: root inner %d, first leaf %d", inner, leaf)
	}
	for _, tc := range []struct {
		name string
		dim  int
		edit func(s *state)
	}{
		{"columns differ from the shared state's", 4, func(*state) {}},
		{"no trees", 3, func(s *state) { s.Trees = nil }},
		{"an empty tree", 3, func(s *state) { s.Trees[1] = nil }},
		{"ψ below 2", 3, func(s *state) { s.Psi = 1 }},
		{"ψ past int32", 3, func(s *state) { s.Psi = math.MaxInt32 + 9 }},
		{"a cycle: a child before its parent", 3, func(s *state) { s.Trees[0][1].Left = 0 }},
		{"a node its own child", 3, func(s *state) { s.Trees[0][0].Right = 0 }},
		{"a child out of range", 3, func(s *state) { s.Trees[0][0].Right = int32(len(s.Trees[0])) }},
		{"a child index far out of range", 3, func(s *state) { s.Trees[0][0].Left = math.MaxInt32 }},
		{"a leaf with a right child", 3, func(s *state) { s.Trees[0][leaf].Right = 0 }},
		{"a leaf marked −2", 3, func(s *state) { s.Trees[0][leaf].Left, s.Trees[0][leaf].Right = -2, -2 }},
		{"a feature past the columns", 3, func(s *state) { s.Trees[0][0].Feature = 3 }},
		{"a negative feature", 3, func(s *state) { s.Trees[0][0].Feature = -1 }},
		{"a NaN split", 3, func(s *state) { s.Trees[0][0].Value = math.NaN() }},
		{"an infinite split", 3, func(s *state) { s.Trees[0][0].Value = math.Inf(-1) }},
		{"a negative leaf size", 3, func(s *state) { s.Trees[0][leaf].Size = -5 }},
		{"a child of negative size, the children's sum still the parent's", 3, func(s *state) {
			t := s.Trees[0]
			t[0].Size = 8
			t[t[0].Left].Size, t[t[0].Right].Size = math.MaxInt32, -math.MaxInt32+8
		}},
		{"the root's rows other than ψ", 3, func(s *state) { s.Psi = 9 }},
		{"a depth that skips a level", 3, func(s *state) { s.Trees[0][1].Depth = 5 }},
		{"a child shared by two parents", 3, func(s *state) {
			t := s.Trees[0]
			t[0].Right = t[0].Left
		}},
		{"more nodes than 2ψ", 3, func(s *state) { s.Trees[2] = append(s.Trees[2], make([]node, 20)...) }},
	} {
		var s state
		if err := method.DecodeState("iforest", good, &s); err != nil {
			t.Fatal(err)
		}
		tc.edit(&s)
		b, err := method.EncodeState("iforest", s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decode(b, tc.dim); err == nil {
			t.Errorf("%s: decoded without error", tc.name)
		}
	}
}

// FuzzDecodeIForest feeds mutations of a fitted state to decode and
// scores dense and sparse rows with any model it accepts: no mutation may
// panic or loop, in decode or in Score.
func FuzzDecodeIForest(f *testing.F) {
	m, X := smallModel(f)
	good, _ := m.MarshalBinary()
	f.Add(good)
	one := newModel([][]node{{{Left: -1, Right: -1, Size: 2}}}, 2, 3, false)
	b, _ := one.MarshalBinary()
	f.Add(b)
	sp := csr.Random(5, 3, 2, 1)
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decode(b, 3)
		if err != nil {
			return
		}
		dst := make([]float64, 40)
		if err := m.Score(context.Background(), dst, X); err != nil {
			t.Fatal(err)
		}
		if err := m.Score(context.Background(), dst[:5], sp); err != nil {
			t.Fatal(err)
		}
		for _, v := range dst {
			if math.IsNaN(v) {
				t.Fatal("a decoded model scores NaN")
			}
		}
	})
}
