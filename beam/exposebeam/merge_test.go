package exposebeam

import (
	"context"
	"math"
	"testing"

	"github.com/kernelad/anomaly/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// blocksOf cuts X into blocks of the given sizes, cycling over shards.
func blocksOf(X *mat.Dense, sizes []int, shards int) []Block {
	n, c := X.Dims()
	var out []Block
	for lo, k := 0, 0; lo < n; k++ {
		hi := min(lo+sizes[k%len(sizes)], n)
		b := Block{Shard: int64(k % shards), Start: int64(lo), Rows: int64(hi - lo), Cols: int64(c)}
		for i := lo; i < hi; i++ {
			b.X = append(b.X, X.RawRowView(i)...)
		}
		out = append(out, b)
		lo = hi
	}
	return out
}

// TestEmbedFnMerge exercises the CombineFn by hand, as a runner that lifts
// combiners does: partial accumulators over disjoint blocks, merged in
// different trees, must give the single-accumulator sum and the in-process
// embedding × n (expose.EXPoSE.Embedding is Σφ/n) to rounding.
func TestEmbedFnMerge(t *testing.T) {
	X := gaussian(1500, 3, 21)
	params := map[string]string{"seed": "9", "map": "rff", "features": "120"}
	want := fitInProcess(t, X, params)
	ms, err := NewMapState(want.FeatureMap())
	if err != nil {
		t.Fatal(err)
	}
	st := want.Stage() // the default scale stage travels with the map
	ms.Offset, ms.Divisor = st.Offset, st.Divisor
	fn := &EmbedFn{Map: ms}
	blocks := blocksOf(X, []int{1, 64, 200, 7}, 3)

	add := func(bs []Block) EmbedAcc {
		a := fn.CreateAccumulator()
		for _, b := range bs {
			if a, err = fn.AddInput(a, b); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	merge := func(a, b EmbedAcc) EmbedAcc {
		m, err := fn.MergeAccumulators(context.Background(), a, b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	whole := add(blocks)
	third := len(blocks) / 3
	p0, p1, p2 := add(blocks[:third]), add(blocks[third:2*third]), add(blocks[2*third:])
	empty := fn.CreateAccumulator()
	for _, tc := range []struct {
		name string
		acc  EmbedAcc
	}{
		{"single accumulator", whole},
		{"(p0+p1)+p2", merge(merge(p0, p1), p2)},
		{"p2+(p1+p0)", merge(p2, merge(p1, p0))},
		{"empty merged both sides", merge(empty, merge(merge(p0, empty), merge(p1, p2)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := fn.ExtractOutput(tc.acc)
			if out.N != 1500 {
				t.Fatalf("count %d, want 1500", out.N)
			}
			if d := maxAbsDiff(out.Mean(), want.Embedding()); d > 1e-14 {
				t.Errorf("embedding differs from in-process by %g", d)
			}
		})
	}
	// Merging must not modify its inputs (a runner may reuse them).
	before := append([]float64(nil), p0.Sum...)
	merge(p0, p1)
	if !floats.Equal(before, p0.Sum) {
		t.Error("MergeAccumulators modified its first argument")
	}
	if _, err := fn.MergeAccumulators(context.Background(), EmbedAcc{Sum: make([]float64, 3), N: 1}, p0); err == nil {
		t.Error("merging accumulators of different widths: no error")
	}
	if _, err := fn.AddInput(empty, Block{Rows: 1, Cols: 2, X: []float64{1, 2}}); err == nil {
		t.Error("block of the wrong width: no error")
	}
}

// TestMomentsFnMerge checks the statistics CombineFn against
// kernel.ScaleGamma (two passes over all entries) for merge orders and
// block sizes, including a shift of 1e3 that makes a one-pass Σx² − n·μ²
// formula lose about 6 digits. (Both methods lose ~eps·μ²/Var relative to
// the exact variance of the stored values; at a shift of 1e6 they disagree
// by 1e-11, so the check stays at 1e3.)
func TestMomentsFnMerge(t *testing.T) {
	X := gaussian(999, 3, 4)
	shifted := mat.NewDense(999, 3, nil)
	shifted.Apply(func(_, _ int, v float64) float64 { return v + 1e3 }, X)
	for _, tc := range []struct {
		name string
		X    *mat.Dense
	}{{"centred", X}, {"shifted by 1e3", shifted}} {
		t.Run(tc.name, func(t *testing.T) {
			fn := &MomentsFn{Shards: 4}
			blocks := blocksOf(tc.X, []int{5, 100, 33}, 4)
			var parts []Moments
			for k := 0; k < 3; k++ {
				a := fn.CreateAccumulator()
				var err error
				for i := k; i < len(blocks); i += 3 {
					if a, err = fn.AddInput(a, blocks[i]); err != nil {
						t.Fatal(err)
					}
				}
				parts = append(parts, a)
			}
			m, err := fn.MergeAccumulators(parts[2], parts[0])
			if err == nil {
				m, err = fn.MergeAccumulators(m, parts[1])
			}
			if err != nil {
				t.Fatal(err)
			}
			m = fn.ExtractOutput(m)
			if m.Rows() != 999 || m.Cols != 3 || m.Entries != 2997 {
				t.Fatalf("counts %d rows %d cols %d entries", m.Rows(), m.Cols, m.Entries)
			}
			want := kernel.ScaleGamma(tc.X)
			if rel := math.Abs(m.Gamma()-want) / want; rel > 1e-12 {
				t.Errorf("gamma %g, kernel.ScaleGamma %g (relative %g)", m.Gamma(), want, rel)
			}
		})
	}
	fn := &MomentsFn{Shards: 1}
	a, _ := fn.AddInput(fn.CreateAccumulator(), Block{Rows: 1, Cols: 2, X: []float64{1, 2}})
	b, _ := fn.AddInput(fn.CreateAccumulator(), Block{Rows: 1, Cols: 3, X: []float64{1, 2, 3}})
	if _, err := fn.MergeAccumulators(a, b); err == nil {
		t.Error("shards with 2 and 3 columns: no error")
	}
}
