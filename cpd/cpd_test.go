package cpd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/tensor"
)

// TestBadInput is must-show 6 for cpd: rank < 1, a rank larger than the
// smallest side with svd initialisation, and a shape whose product differs
// from the row length are clear errors; so are the other invalid settings.
func TestBadInput(t *testing.T) {
	ctx := context.Background()
	x := tensor.Zeros(5, 10, 12)
	X := mat.NewDense(3, 600, nil)
	for _, c := range []struct {
		name string
		run  func() error
		want string // substring of the message
		as   any    // error type to match with errors.As, or nil
	}{
		{"rank 0", func() error { _, err := Decompose(ctx, x, Config{Rank: 0}); return err },
			"cpd: rank must be at least 1, got 0", new(*RankError)},
		{"rank -2 batch", func() error { _, err := DecomposeBatch(ctx, X, []int{5, 10, 12}, Config{Rank: -2}); return err },
			"cpd: rank must be at least 1, got -2", new(*RankError)},
		{"rank above smallest side, svd", func() error { _, err := Decompose(ctx, x, Config{Rank: 6}); return err },
			"cpd: rank 6 exceeds the smallest side 5 of shape 5x10x12", new(*RankError)},
		{"rank above smallest side, batch", func() error { _, err := DecomposeBatch(ctx, X, []int{5, 10, 12}, Config{Rank: 6}); return err },
			"use random initialisation", new(*RankError)},
		// Check refuses what Decompose would, from the shape alone (no
		// tensor of 40×40×40 values is needed to refuse rank 10⁹).
		{"Check: rank above smallest side", func() error { return Config{Rank: 1e9}.Check([]int{40, 40, 40}) },
			"cpd: rank 1000000000 exceeds the smallest side 40 of shape 40x40x40", new(*RankError)},
		{"Check: order 1", func() error { return Config{Rank: 1}.Check([]int{40}) }, "order at least 2", nil},
		{"shape product ≠ row length", func() error { _, err := DecomposeBatch(ctx, X, []int{5, 10, 10}, Config{Rank: 2}); return err },
			"tensor: shape 5x10x10 has 500 elements but the data has 600 per sample", new(*tensor.ShapeError)},
		{"side 0", func() error { _, err := DecomposeBatch(ctx, X, []int{600, 0}, Config{Rank: 1}); return err },
			"side 2 is 0", new(*tensor.ShapeError)},
		{"order 1", func() error { _, err := DecomposeBatch(ctx, X, []int{600}, Config{Rank: 1}); return err },
			"order at least 2", nil},
		{"negative tol", func() error { _, err := Decompose(ctx, x, Config{Rank: 1, Tol: -1}); return err },
			"tol must be ≥ 0", nil},
		{"negative max iter", func() error { _, err := Decompose(ctx, x, Config{Rank: 1, MaxIter: -1}); return err },
			"max iterations", nil},
		{"negative ridge", func() error { _, err := Decompose(ctx, x, Config{Rank: 1, Ridge: -1e-3}); return err },
			"ridge must be", nil},
		{"unknown init", func() error { _, err := Decompose(ctx, x, Config{Rank: 1, Init: 7}); return err },
			"unknown init", nil},
		{"NaN entry", func() error {
			y := tensor.Zeros(3, 4)
			y.Set(math.NaN(), 1, 2)
			_, err := Decompose(ctx, y, Config{Rank: 1})
			return err
		}, "non-finite", nil},
		{"Inf in sample 2 of a batch", func() error {
			Y := mat.NewDense(3, 12, nil)
			Y.Set(1, 5, math.Inf(1))
			_, err := DecomposeBatch(ctx, Y, []int{3, 4}, Config{Rank: 1})
			return err
		}, "cpd: sample 2: tensor has non-finite entries", new(*SampleError)},
	} {
		err := c.run()
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not contain %q", c.name, err, c.want)
		}
		if c.as != nil && !errors.As(err, c.as) {
			t.Errorf("%s: error %T is not %T", c.name, err, c.as)
		}
	}
	// Random initialisation accepts a rank above the smallest side.
	rng := rand.New(rand.NewPCG(1, 1))
	y, _, _ := planted(rng, []int{3, 8, 9}, 4, 0)
	if _, err := Decompose(ctx, y, Config{Rank: 4, Init: Random}); err != nil {
		t.Errorf("random init, rank 4 > side 3: %v", err)
	}
	if _, err := ParseInit("qr"); err == nil {
		t.Error("ParseInit accepted qr")
	}
}

// TestConventions checks the documented normal form: unit columns, λ ≥ 0
// sorted descending, largest-magnitude entry positive in modes 0…N−2, and
// that flipping signs or permuting the planted components of the input
// does not change the output.
func TestConventions(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	x, _, truth := planted(rng, []int{9, 7, 8, 6}, 3, 0.01)
	k, err := Decompose(context.Background(), x, Config{Rank: 3})
	if err != nil {
		t.Fatal(err)
	}
	for r := 1; r < k.Rank(); r++ {
		if k.Weights[r] > k.Weights[r-1] || k.Weights[r] < 0 {
			t.Errorf("weights not sorted descending and ≥ 0: %v", k.Weights)
		}
	}
	for n, f := range k.Factors {
		for r := range k.Rank() {
			col := mat.Col(nil, r, f)
			if d := math.Abs(floats.Norm(col, 2) - 1); d > 1e-12 {
				t.Errorf("mode %d column %d: norm off by %g", n, r, d)
			}
			if n < len(k.Factors)-1 {
				if col[floats.MaxIdx(absAll(col))] <= 0 {
					t.Errorf("mode %d column %d: largest-magnitude entry not positive", n, r)
				}
			}
		}
	}
	// The same tensor written with components reordered and signs flipped
	// pairwise (mode 0 and mode 2 of component 1) gives the same result.
	perm := &Kruskal{Weights: []float64{1, 1, 1}, Factors: make([]*mat.Dense, 4)}
	for n, f := range truth.Factors {
		rows, _ := f.Dims()
		g := mat.NewDense(rows, 3, nil)
		for r, src := range []int{2, 0, 1} {
			col := mat.Col(nil, src, f)
			if r == 1 && (n == 0 || n == 2) {
				floats.Scale(-1, col)
			}
			g.SetCol(r, col)
		}
		perm.Factors[n] = g
	}
	noise := x.Clone()
	floats.Sub(noise.Data(), truth.Full().Data())
	x2 := perm.Full()
	floats.Add(x2.Data(), noise.Data())
	k2, err := Decompose(context.Background(), x2, Config{Rank: 3})
	if err != nil {
		t.Fatal(err)
	}
	for n := range k.Factors {
		if !mat.EqualApprox(k.Factors[n], k2.Factors[n], 1e-8) {
			t.Errorf("mode %d: factors differ after permuting the planted components", n)
		}
	}
	if !floats.EqualApprox(k.Weights, k2.Weights, 1e-8) {
		t.Errorf("weights differ: %v vs %v", k.Weights, k2.Weights)
	}
}

func absAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Abs(x)
	}
	return out
}

// TestMTTKRP checks the dimension-tree MTTKRP (through T = X·A_{N−1}) and
// the last mode's product against the definition M = X_(n)·KR(A_j, j≠n),
// for orders 2 to 5.
func TestMTTKRP(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 5))
	for _, shape := range [][]int{{6, 5}, {4, 5, 6}, {3, 4, 2, 5}, {2, 3, 2, 3, 4}, {40, 3, 70}} {
		const R = 3
		x := tensor.Zeros(shape...)
		for i := range x.Data() {
			x.Data()[i] = rng.NormFloat64()
		}
		w := newWorkspace(shape, R, true)
		for n := range shape {
			for i := range w.factors[n] {
				w.factors[n][i] = rng.NormFloat64()
			}
		}
		N, P, L := len(shape), w.P, w.L
		xg := blas64.General{Rows: P, Cols: L, Stride: L, Data: x.Data()}
		xt := blas64.General{Rows: L, Cols: P, Stride: P, Data: w.xt}
		transpose(xt, xg)
		at := blas64.General{Rows: R, Cols: L, Stride: L, Data: w.at}
		transpose(at, w.factor(N-1))
		blas64Gemm(at, xg, w.tt, P)
		for n := range shape {
			if n < N-1 {
				w.mttkrpFromT(n)
			} else {
				w.mats = append(w.mats[:0], w.factorsRange(0, N-1)...)
				krT(w.krt, P, w.mats)
				w.mttkrpLast(xt)
			}
			var un, kr, want mat.Dense
			x.Unfold(&un, n)
			var others []mat.Matrix
			for j := range shape {
				if j != n {
					others = append(others, mat.NewDense(shape[j], R, w.factors[j]))
				}
			}
			tensor.KhatriRao(&kr, others...)
			want.Mul(&un, &kr)
			got := mat.NewDense(R, shape[n], w.mt[:R*shape[n]])
			if !mat.EqualApprox(got.T(), &want, 1e-10) {
				t.Errorf("%v mode %d: MTTKRP differs from X_(n)·KR", shape, n)
			}
		}
	}
}

// TestSVDInit checks that the svd initialisation spans the leading left
// singular subspace of every unfolding (against gonum's SVD), on shapes
// that take each of its code paths.
func TestSVDInit(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for _, shape := range [][]int{{5, 6, 7}, {4, 40, 40}, {3, 2, 50}, {2, 3, 2, 3}, {30, 40}} {
		const R = 2
		x := tensor.Zeros(shape...)
		for i := range x.Data() {
			x.Data()[i] = rng.NormFloat64()
		}
		w := newWorkspace(shape, R, false)
		P, L := w.P, w.L
		transpose(blas64.General{Rows: L, Cols: P, Stride: P, Data: w.xt}, blas64.General{Rows: P, Cols: L, Stride: L, Data: x.Data()})
		if err := w.svdInitAll(x.Data()); err != nil {
			t.Fatal(err)
		}
		for n := 1; n < len(shape); n++ {
			w.normalise(n)
			var un mat.Dense
			x.Unfold(&un, n)
			var svd mat.SVD
			if !svd.Factorize(&un, mat.SVDThin) {
				t.Fatal("gonum SVD failed")
			}
			var u mat.Dense
			svd.UTo(&u)
			got := mat.NewDense(shape[n], R, w.factors[n])
			for r := range R {
				c := math.Abs(mat.Dot(got.ColView(r), u.ColView(r)))
				if math.Abs(c-1) > 1e-8 {
					t.Errorf("%v mode %d vector %d: |cos| with the singular vector = %v", shape, n, r, c)
				}
			}
		}
	}
}

// TestBatchMatchesSingle: DecomposeBatch gives, row by row, what Decompose
// gives, for dense and non-dense input, with both initialisations.
func TestBatchMatchesSingle(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	shape := []int{6, 5, 4}
	const n = 23
	X := mat.NewDense(n, 120, nil)
	for i := range n {
		x, _, _ := planted(rng, shape, 2, 0.05)
		X.SetRow(i, x.Data())
	}
	for _, init := range []Init{SVD, Random} {
		cfg := Config{Rank: 2, Init: init, Src: rand.NewPCG(11, 12)}
		ks, err := DecomposeBatch(context.Background(), X, shape, cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Src = rand.NewPCG(11, 12)
		ks2, err := DecomposeBatch(context.Background(), X.T().T(), shape, cfg) // not a RawMatrixer
		if err != nil {
			t.Fatal(err)
		}
		if len(ks) != n {
			t.Fatalf("%d results for %d rows", len(ks), n)
		}
		for i := range n {
			if !floats.Equal(ks[i].Weights, ks2[i].Weights) {
				t.Errorf("%v row %d: dense and generic input differ", init, i)
			}
			if init == SVD {
				x, _ := tensor.RowView(X, i, shape)
				k, err := Decompose(context.Background(), x, Config{Rank: 2})
				if err != nil {
					t.Fatal(err)
				}
				if !floats.EqualApprox(k.Weights, ks[i].Weights, 1e-12) || !mat.EqualApprox(k.Factors[2], ks[i].Factors[2], 1e-12) {
					t.Errorf("row %d: batch and single decomposition differ", i)
				}
			}
		}
	}
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x, _, _ := planted(rand.New(rand.NewPCG(1, 2)), []int{5, 6, 7}, 2, 0)
	if _, err := Decompose(ctx, x, Config{Rank: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("Decompose on a cancelled context: %v", err)
	}
	X := mat.NewDense(4, 210, nil)
	if _, err := DecomposeBatch(ctx, X, []int{5, 6, 7}, Config{Rank: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("DecomposeBatch on a cancelled context: %v", err)
	}
}

// TestDegenerate covers the zero tensor, an over-estimated rank (singular
// normal equations → pseudo-inverse), the ridge, and Random reproducibility.
func TestDegenerate(t *testing.T) {
	ctx := context.Background()
	z := tensor.Zeros(3, 4, 5)
	k, err := Decompose(ctx, z, Config{Rank: 2})
	if err != nil {
		t.Fatal(err)
	}
	if k.Weights[0] != 0 || k.Weights[1] != 0 {
		t.Errorf("zero tensor: weights %v", k.Weights)
	}
	// A rank-1 tensor fitted at rank 3: the svd init gives orthogonal but
	// useless extra components; the fit must still be exact and finite.
	rng := rand.New(rand.NewPCG(3, 3))
	x, _, truth := planted(rng, []int{6, 7, 8}, 1, 0)
	for _, ridge := range []float64{0, 1e-6} {
		k, err = Decompose(ctx, x, Config{Rank: 3, Ridge: ridge})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range k.Weights {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("ridge %g: non-finite weight %v", ridge, k.Weights)
			}
		}
		if e := relErr(x, &k); e > 1e-6 {
			t.Errorf("ridge %g: rank-1 tensor at rank 3: rel err %g", ridge, e)
		}
	}
	_ = truth
	// A rank-2 matrix made of two identical components (collinear): V is
	// exactly singular for the pseudo-inverse path.
	a := []float64{1, 2, 3}
	b := []float64{1, 0, 1, 0}
	m := tensor.Zeros(3, 4)
	for i := range 3 {
		for j := range 4 {
			m.Set(2*a[i]*b[j], i, j)
		}
	}
	k, err = Decompose(ctx, m, Config{Rank: 2, Init: Random, Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if e := relErr(m, &k); e > 1e-8 || math.IsNaN(e) {
		t.Errorf("collinear components: rel err %g", e)
	}
	// Random initialisation is reproducible from the source.
	y, _, _ := planted(rng, []int{5, 6, 7}, 3, 0.01)
	k1, _ := Decompose(ctx, y, Config{Rank: 3, Init: Random, Src: rand.NewPCG(5, 5)})
	k2, _ := Decompose(ctx, y, Config{Rank: 3, Init: Random, Src: rand.NewPCG(5, 5)})
	if !floats.Equal(k1.Weights, k2.Weights) {
		t.Error("Random init with the same source gave different results")
	}
}

// TestStoppingRule: MaxIter bounds the sweeps, and the reported error is
// the explicit ‖X − [[λ; A]]‖/‖X‖ to the precision of the cheap formula.
func TestStoppingRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	x, _, _ := planted(rng, []int{20, 30, 25}, 4, 0.01)
	k, err := Decompose(context.Background(), x, Config{Rank: 4, MaxIter: 3})
	if err != nil {
		t.Fatal(err)
	}
	if k.Iter != 3 || k.Converged {
		t.Errorf("MaxIter 3: %d sweeps, converged %v", k.Iter, k.Converged)
	}
	k, err = Decompose(context.Background(), x, Config{Rank: 4})
	if err != nil {
		t.Fatal(err)
	}
	if !k.Converged || k.Iter >= DefaultMaxIter {
		t.Errorf("default config: %d sweeps, converged %v", k.Iter, k.Converged)
	}
	if e := relErr(x, &k); math.Abs(e-k.RelErr) > 1e-7 {
		t.Errorf("tracked error %v vs explicit %v", k.RelErr, e)
	}
}

func TestFMS(t *testing.T) {
	a := &Kruskal{Weights: []float64{1, 1}, Factors: []*mat.Dense{
		mat.NewDense(2, 2, []float64{1, 0, 0, 1}),
		mat.NewDense(2, 2, []float64{1, 1, 0, 1}),
	}}
	// b = a with components swapped and one column negated: FMS 1.
	b := &Kruskal{Weights: []float64{1, 1}, Factors: []*mat.Dense{
		mat.NewDense(2, 2, []float64{0, 1, 1, 0}),
		mat.NewDense(2, 2, []float64{-1, 1, -1, 0}),
	}}
	if f := FMS(a, b); math.Abs(f-1) > 1e-15 {
		t.Errorf("FMS of a permuted, sign-flipped copy = %v, want 1", f)
	}
	// c shares component 0 only; component 1 of c is orthogonal in mode 0:
	// FMS = (1 + 0)/2.
	c := &Kruskal{Weights: []float64{1, 1}, Factors: []*mat.Dense{
		mat.NewDense(2, 2, []float64{1, 1, 0, 0}),
		mat.NewDense(2, 2, []float64{1, 1, 0, 1}),
	}}
	if f := FMS(a, c); math.Abs(f-0.5) > 1e-15 {
		t.Errorf("FMS = %v, want 0.5", f)
	}
}

func blas64Gemm(at, x blas64.General, tt []float64, P int) {
	blas64.Gemm('N', 'T', 1, at, x, 0, blas64.General{Rows: at.Rows, Cols: P, Stride: P, Data: tt})
}

// noisyGram adds noise times a standard normal draw from rng to every
// entry of x, row by row (nothing when noise is 0), and returns the Gram
// matrix x xᵀ: the test matrices of the eigensolvers.
func noisyGram(rng *rand.Rand, x *mat.Dense, noise float64) *mat.SymDense {
	if noise > 0 {
		r, c := x.Dims()
		for i := range r {
			for j := range c {
				x.Set(i, j, x.At(i, j)+noise*rng.NormFloat64())
			}
		}
	}
	var g mat.SymDense
	g.SymOuterK(1, x)
	return &g
}

// TestTopEigen checks the subspace iteration against syev: on a Gram
// matrix with a clear gap (rank 3 plus 1% noise) it must converge and give
// the leading eigenvectors; on a flat spectrum (Wishart noise) it may give
// up, but whatever it returns must be accurate.
func TestTopEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 11))
	for _, c := range []struct {
		n, rank int
		noise   float64
		mustOK  bool
	}{
		{45, 2, 0.01, true},
		{100, 5, 0.01, true},
		{60, 3, 0, true}, // rank-deficient Gram: Householder QR keeps Q orthonormal
		{50, 50, 1, false},
	} {
		const k = 2
		// X = A Bᵀ + noise·E, n × 3n; G = X Xᵀ.
		m := 3 * c.n
		x := mat.NewDense(c.n, m, nil)
		for r := range c.rank {
			a, b := make([]float64, c.n), make([]float64, m)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			for i := range b {
				b[i] = rng.NormFloat64()
			}
			x.RankOne(x, float64(c.rank-r), mat.NewVecDense(c.n, a), mat.NewVecDense(m, b))
		}
		g := noisyGram(rng, x, c.noise)
		var s eigScratch
		out := make([]float64, c.n*k)
		ok := s.topEigen(g.RawSymmetric(), k, subspaceBlock(c.n, k), out)
		if c.mustOK && !ok {
			t.Errorf("n %d rank %d: subspace iteration did not converge", c.n, c.rank)
			continue
		}
		if !ok {
			continue
		}
		var eig mat.EigenSym
		eig.Factorize(g, true)
		var v mat.Dense
		eig.VectorsTo(&v)
		got := mat.NewDense(c.n, k, out)
		for r := range k {
			cos := math.Abs(mat.Dot(got.ColView(r), v.ColView(c.n-1-r)))
			if math.Abs(cos-1) > 1e-8 {
				t.Errorf("n %d rank %d vector %d: |cos| with syev's = %v", c.n, c.rank, r, cos)
			}
		}
	}
}

// One run with Trace records the relative error of every sweep: as many
// values as sweeps done (with and without early convergence), the last one
// the run's RelErr, and the k-th equal to the final error of a run stopped
// after k sweeps (ALS is deterministic from the SVD initialisation), which
// is how a trace had to be drawn before.
func TestTrace(t *testing.T) {
	x := tensor.Zeros(6, 5, 4)
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range x.Data() {
		x.Data()[i] = rng.NormFloat64()
	}
	for _, tol := range []float64{1e-4, math.SmallestNonzeroFloat64} {
		k, err := Decompose(context.Background(), x, Config{Rank: 2, Tol: tol, MaxIter: 40, Trace: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(k.Trace) != k.Iter || k.Trace[len(k.Trace)-1] != k.RelErr {
			t.Fatalf("tol %g: %d trace values for %d sweeps; last %v, RelErr %v", tol, len(k.Trace), k.Iter, k.Trace[len(k.Trace)-1], k.RelErr)
		}
		for _, it := range []int{1, 3, k.Iter} {
			short, err := Decompose(context.Background(), x, Config{Rank: 2, Tol: math.SmallestNonzeroFloat64, MaxIter: it})
			if err != nil {
				t.Fatal(err)
			}
			if short.RelErr != k.Trace[it-1] {
				t.Errorf("tol %g: sweep %d of the traced run %v, a run of %d sweeps %v", tol, it, k.Trace[it-1], it, short.RelErr)
			}
		}
	}
	var sweeps []int
	_, err := Decompose(context.Background(), x, Config{Rank: 2, MaxIter: 7, Tol: math.SmallestNonzeroFloat64,
		Progress: func(stage string, done, total int) { sweeps = append(sweeps, done) }})
	if err != nil || len(sweeps) != 7 || sweeps[6] != 7 {
		t.Errorf("progress reported sweeps %v (%v), want 1..7", sweeps, err)
	}
}

// CP commutes with scaling: a tensor in units of 1e±100 decomposes into the
// same factors as the tensor itself, with weights scaled by the unit (the
// decomposition runs on X/2^e, so no Gram matrix overflows or underflows).
func TestDecomposeExtremeUnits(t *testing.T) {
	x := tensor.Zeros(5, 4, 3)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range x.Data() {
		x.Data()[i] = rng.NormFloat64()
	}
	want, err := Decompose(context.Background(), x, Config{Rank: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, unit := range []float64{1e100, 1e-100, 1e300} {
		y := tensor.Zeros(5, 4, 3)
		for i, v := range x.Data() {
			y.Data()[i] = v * unit
		}
		got, err := Decompose(context.Background(), y, Config{Rank: 2})
		if err != nil {
			t.Fatalf("unit %g: %v", unit, err)
		}
		for r := range want.Weights {
			if math.Abs(got.Weights[r]/unit-want.Weights[r]) > 1e-9*want.Weights[r] {
				t.Errorf("unit %g: weight %d is %g·unit, want %g", unit, r, got.Weights[r]/unit, want.Weights[r])
			}
		}
		for n := range want.Factors {
			if !mat.EqualApprox(got.Factors[n], want.Factors[n], 1e-9) {
				t.Errorf("unit %g: factor %d differs", unit, n)
			}
		}
	}
}

// A tensor of finite entries whose norm passes float64's range (twelve
// entries of 1e308) decomposes, with the weight that passes the range
// saturated at MaxFloat64 (it was refused as holding non-finite entries);
// NaN is still refused.
func TestDecomposeNormPastRange(t *testing.T) {
	x := tensor.Zeros(3, 4)
	for i := range x.Data() {
		x.Data()[i] = 1e308
	}
	k, err := Decompose(context.Background(), x, Config{Rank: 1})
	if err != nil {
		t.Fatal(err)
	}
	if k.Weights[0] != math.MaxFloat64 {
		t.Errorf("weight %g, want MaxFloat64", k.Weights[0])
	}
	for n, f := range k.Factors {
		for _, v := range f.RawMatrix().Data {
			if math.Abs(math.Abs(v)-1/math.Sqrt(float64(x.Shape()[n]))) > 1e-12 {
				t.Errorf("factor %d: %v, want ±1/√I_n", n, f.RawMatrix().Data)
				break
			}
		}
	}
	x.Data()[5] = math.NaN()
	if _, err := Decompose(context.Background(), x, Config{Rank: 1}); !errors.Is(err, ErrNonFinite) {
		t.Errorf("NaN entry: %v, want ErrNonFinite", err)
	}
}
