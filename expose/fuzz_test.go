package expose

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// FuzzDecodeEXPoSE feeds mutated model states through Decode (the hook
// Load calls with the state section of a model file) for a detector of
// the fuzzed feature count, column count, solver and regulariser. A state
// must decode to a model or give an error, never panic; a model it
// decodes must score rows of its columns without a panic (a crafted
// embedding may overflow a score: Base reports NaN scores), decode for
// its own column count only, and save a state that decodes to a model
// that scores the same. The corpus starts from the states of fitted
// models: both solvers, the regularisers (l1 saves the mean beside the
// embedding), the orthogonal map and the Nyström map (its landmarks and
// Cholesky factor; both solvers, l1).
func FuzzDecodeEXPoSE(f *testing.F) {
	X := testmat.NormalSeed(40, 3, 1)
	for _, cfg := range []Config{
		{Map: RFF, Features: 8},
		{Features: 6, Solver: SGD, Iterations: 30, Map: ORF},
		{Map: RFF, Features: 5, Regularizer: L1, Lambda: 0.01},
		{Map: RFF, Features: 7, Regularizer: Roughness, Lambda: 0.1, Solver: SGD, Iterations: 20},
		{Map: Nystrom, Landmarks: 6},
		{Map: Nystrom, Landmarks: 5, Solver: SGD, Iterations: 30},
		{Map: Nystrom, Landmarks: 7, Regularizer: L1, Lambda: 0.01},
	} {
		cfg.Src = rand.NewPCG(1, 1)
		d := mustNew(f, cfg)
		if err := d.Fit(context.Background(), X); err != nil {
			f.Fatal(err)
		}
		m, _ := d.Model()
		b, err := m.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		size := cfg.Features
		if cfg.Map == Nystrom {
			size = cfg.Landmarks
		}
		f.Add(b, uint8(3), uint8(size), cfg.Solver == SGD, uint8(len(cfg.Regularizer)%3), cfg.Map == Nystrom)
	}
	regs := []string{NoRegularizer, L1, Roughness}
	f.Fuzz(func(t *testing.T, state []byte, dim, features uint8, sgd bool, reg uint8, nystrom bool) {
		cfg := Config{Map: RFF, Features: max(1, int(features)%64), Regularizer: regs[int(reg)%3], Lambda: 0.01}
		if sgd {
			cfg.Solver = SGD
		}
		if nystrom {
			// features is then the landmark count; roughness needs frequencies
			cfg.Map, cfg.Landmarks = Nystrom, cfg.Features
			if cfg.Regularizer == Roughness {
				cfg.Regularizer = L1
			}
		}
		d, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cols := max(1, int(dim)%16)
		m, err := d.decode(state, cols)
		if err != nil {
			return
		}
		Y := testmat.NormalSeed(5, cols, 2)
		Y.Set(4, 0, 1e300) // a row far outside any data
		dst := make([]float64, 5)
		if err := m.Score(context.Background(), dst, Y); err != nil {
			t.Fatalf("Score of a decoded model: %v", err)
		}
		if _, err := d.decode(state, cols+1); err == nil {
			t.Fatalf("a state of %d columns decoded for %d", cols, cols+1)
		}
		again, err := m.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		m2, err := d.decode(again, cols)
		if err != nil {
			t.Fatalf("a decoded model saved a state that does not decode: %v", err)
		}
		dst2 := make([]float64, 5)
		same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
		if err := m2.Score(context.Background(), dst2, Y); err != nil || !slices.EqualFunc(dst, dst2, same) {
			t.Fatalf("saved and decoded again, the model scores %v (%v), before %v", dst2, err, dst)
		}
	})
}
