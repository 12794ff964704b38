package cpd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/tensor"
)

// Init selects how the factor matrices are initialised.
type Init int

const (
	// SVD initialises the factor of mode n with the R leading left singular
	// vectors of the unfolding X_(n) (the default). It needs R ≤ every side.
	SVD Init = iota
	// Random initialises every factor entry uniformly in [0, 1) from
	// Config.Src, as tensorly's parafac does by default.
	Random
)

// String returns "svd" or "random".
func (i Init) String() string {
	switch i {
	case SVD:
		return "svd"
	case Random:
		return "random"
	}
	return fmt.Sprintf("Init(%d)", int(i))
}

// ParseInit reads "svd" or "random".
func ParseInit(s string) (Init, error) {
	switch s {
	case "svd", "":
		return SVD, nil
	case "random":
		return Random, nil
	}
	return 0, fmt.Errorf("cpd: unknown init %q (want svd or random)", s)
}

// Default values of Config fields left at zero.
const (
	DefaultTol     = 1e-8
	DefaultMaxIter = 100
)

// Config configures CP-ALS. The zero value of every field but Rank selects
// the documented default; Rank has no default (it is the model).
type Config struct {
	// Rank R ≥ 1 is the number of rank-one components.
	Rank int
	// Init is the initialisation, SVD (default) or Random.
	Init Init
	// Tol stops the iterations once the relative reconstruction error
	// ‖X − [[λ; A]]‖/‖X‖ changes by less than Tol between two sweeps
	// (checked from the second sweep on). 0 means DefaultTol (1e-8).
	Tol float64
	// MaxIter bounds the number of sweeps; 0 means DefaultMaxIter (100).
	MaxIter int
	// Ridge ≥ 0 is added to the diagonal of the R×R normal matrix of every
	// update. The normal matrix is built from unit-norm factors, so its
	// diagonal is 1 and Ridge is relative. 0 (the default) is plain ALS.
	Ridge float64
	// Src is the random source for Random initialisation. nil means a fixed
	// source (PCG seeded with 1, 2), so results are reproducible; SVD
	// initialisation does not use it.
	Src rand.Source
	// Progress, when set, is told about the work: Decompose reports stage
	// "cp-als" after every sweep (sweeps done, MaxIter), DecomposeBatch
	// stage "cp-als" after every sample (samples done, their count). It is
	// called from the decomposing goroutine(s), serialised, and must
	// return quickly.
	Progress func(stage string, done, total int)
	// Trace asks Decompose to keep the relative error after every sweep in
	// Kruskal.Trace: a convergence curve from one run.
	Trace bool
}

// RankError reports a rank the decomposition cannot use: below 1, or above
// the smallest side of the tensor with SVD initialisation.
type RankError struct {
	Rank  int
	Shape []int // nil when the rank is below 1
	// SVDOnly says the caller has no other initialisation to offer
	// (the message then does not suggest one).
	SVDOnly bool
}

func (e *RankError) Error() string {
	if e.Rank < 1 {
		return fmt.Sprintf("cpd: rank must be at least 1, got %d", e.Rank)
	}
	fix := "lower the rank or use random initialisation"
	if e.SVDOnly {
		fix = fmt.Sprintf("lower the rank to at most %d", minSide(e.Shape))
	}
	return fmt.Sprintf("cpd: rank %d exceeds the smallest side %d of shape %s: svd initialisation takes the leading %d left singular vectors of each unfolding and a side of %d has only %d (%s)",
		e.Rank, minSide(e.Shape), tensor.FormatShape(e.Shape), e.Rank, minSide(e.Shape), minSide(e.Shape), fix)
}

func minSide(shape []int) int {
	m := math.MaxInt
	for _, v := range shape {
		m = min(m, v)
	}
	return m
}

// ErrNonFinite is returned when the tensor holds NaN or ±Inf.
var ErrNonFinite = errors.New("cpd: tensor has non-finite entries")

// Check reports the error Decompose and DecomposeBatch would return for
// cfg and a tensor (or sample) of the given shape before they look at any
// value: a rank below 1 or, with SVD initialisation, above the smallest
// side (a *RankError), an order below 2, an unknown initialisation, or a
// bad Tol, MaxIter or Ridge. It allocates nothing, so a caller can check a
// rank before it builds the tensor (bench's planted tensor of rank 10⁹
// allocated its factors, 8 GB, before Decompose refused the rank).
func (cfg Config) Check(shape []int) error {
	_, err := cfg.check(shape)
	return err
}

// check validates cfg against a sample shape and returns it with defaults
// filled in.
func (cfg Config) check(shape []int) (Config, error) {
	if cfg.Rank < 1 {
		return cfg, &RankError{Rank: cfg.Rank}
	}
	if len(shape) < 2 {
		return cfg, fmt.Errorf("cpd: CP decomposition needs a tensor of order at least 2, got shape %s", tensor.FormatShape(shape))
	}
	switch cfg.Init {
	case SVD:
		if cfg.Rank > minSide(shape) {
			return cfg, &RankError{Rank: cfg.Rank, Shape: append([]int(nil), shape...)}
		}
	case Random:
	default:
		return cfg, fmt.Errorf("cpd: unknown init %d", int(cfg.Init))
	}
	if cfg.Tol < 0 || math.IsNaN(cfg.Tol) {
		return cfg, fmt.Errorf("cpd: tol must be ≥ 0, got %v", cfg.Tol)
	}
	if cfg.Tol == 0 {
		cfg.Tol = DefaultTol
	}
	if cfg.MaxIter < 0 {
		return cfg, fmt.Errorf("cpd: max iterations must be ≥ 0, got %d", cfg.MaxIter)
	}
	if cfg.MaxIter == 0 {
		cfg.MaxIter = DefaultMaxIter
	}
	if cfg.Ridge < 0 || math.IsNaN(cfg.Ridge) || math.IsInf(cfg.Ridge, 0) {
		return cfg, fmt.Errorf("cpd: ridge must be finite and ≥ 0, got %v", cfg.Ridge)
	}
	return cfg, nil
}

// Kruskal is a tensor in CP (Kruskal) form, X ≈ Σ_r λ_r a_r^(0) ∘ … ∘ a_r^(N−1).
//
// As returned by Decompose: every column of every factor has unit Euclidean
// norm, λ_r ≥ 0, components are sorted by λ descending, and in modes
// 0 … N−2 the entry of largest magnitude of each column is positive (the
// first such entry on ties), the sign being pushed into the last mode.
type Kruskal struct {
	// Weights holds λ, one per component.
	Weights []float64
	// Factors[n] is I_n × R; column r is a_r^(n).
	Factors []*mat.Dense

	// Iter is the number of ALS sweeps done, RelErr the relative error
	// ‖X − [[λ; A]]‖/‖X‖ tracked by the stopping rule after the last sweep,
	// and Converged whether the tolerance (not MaxIter) stopped the
	// iterations. They are zero for a Kruskal tensor built by hand.
	Iter      int
	RelErr    float64
	Converged bool
	// Trace holds the relative error after each sweep when Config.Trace
	// was set (len(Trace) = Iter).
	Trace []float64
}

// Rank returns the number of components R.
func (k *Kruskal) Rank() int { return len(k.Weights) }

// Shape returns the sides I_n (the row counts of the factors).
func (k *Kruskal) Shape() []int {
	s := make([]int, len(k.Factors))
	for n, f := range k.Factors {
		s[n], _ = f.Dims()
	}
	return s
}

// Full returns the dense tensor Σ_r λ_r a_r^(0) ∘ … ∘ a_r^(N−1).
func (k *Kruskal) Full() *tensor.Dense {
	shape := k.Shape()
	t := tensor.Zeros(shape...)
	R := k.Rank()
	if len(shape) == 1 {
		for i := range shape[0] {
			s := 0.0
			for r := range R {
				s += k.Weights[r] * k.Factors[0].At(i, r)
			}
			t.Data()[i] = s
		}
		return t
	}
	// X_(0) = A_0 · diag(λ) · KR(A_1, …, A_{N−1})ᵀ; X_(0) is t's reshape.
	a0 := mat.DenseCopyOf(k.Factors[0])
	for r := range R {
		col := a0.ColView(r).(*mat.VecDense)
		col.ScaleVec(k.Weights[r], col)
	}
	rest := make([]mat.Matrix, len(shape)-1)
	for n := range rest {
		rest[n] = k.Factors[n+1]
	}
	var kr mat.Dense
	tensor.KhatriRao(&kr, rest...)
	t.Reshape(1).Mul(a0, kr.T())
	return t
}

// FMS returns the factor match score of two Kruskal tensors of the same
// shape and rank: the mean over components of Π_n |cos(a_r^(n), b_π(r)^(n))|,
// maximised over permutations π of the components of b (exactly, by dynamic
// programming over subsets, for R ≤ 16; greedily above). Weights are not
// compared. 1 means the same rank-one directions up to order, sign and scale.
// It panics if the shapes or ranks differ.
func FMS(a, b *Kruskal) float64 {
	R := a.Rank()
	if b.Rank() != R || len(a.Factors) != len(b.Factors) {
		panic("cpd: FMS of Kruskal tensors of different rank or order")
	}
	if R == 0 {
		return 1
	}
	// c[r][s] = Π_n |cos(a_r^(n), b_s^(n))|.
	c := make([][]float64, R)
	for r := range c {
		c[r] = make([]float64, R)
		for s := range c[r] {
			c[r][s] = 1
		}
	}
	for n := range a.Factors {
		fa, fb := a.Factors[n], b.Factors[n]
		ra, _ := fa.Dims()
		rb, _ := fb.Dims()
		if ra != rb {
			panic("cpd: FMS of Kruskal tensors of different shape")
		}
		for r := range R {
			x := fa.ColView(r)
			nx := mat.Norm(x, 2)
			for s := range R {
				y := fb.ColView(s)
				ny := mat.Norm(y, 2)
				cos := 0.0
				if nx > 0 && ny > 0 {
					cos = math.Abs(mat.Dot(x, y)) / (nx * ny)
				}
				c[r][s] *= cos
			}
		}
	}
	if R > 16 {
		used := make([]bool, R)
		sum := 0.0
		for r := range R {
			best, bs := -1.0, 0
			for s := range R {
				if !used[s] && c[r][s] > best {
					best, bs = c[r][s], s
				}
			}
			used[bs] = true
			sum += best
		}
		return sum / float64(R)
	}
	// best[mask] = the largest total when components 0…popcount(mask)−1 of a
	// are matched to the set mask of components of b.
	best := make([]float64, 1<<R)
	for m := 1; m < len(best); m++ {
		best[m] = -1
	}
	for m := 0; m < len(best)-1; m++ {
		if best[m] < 0 {
			continue
		}
		r := popcount(m)
		for s := range R {
			if m&(1<<s) == 0 {
				if v := best[m] + c[r][s]; v > best[m|1<<s] {
					best[m|1<<s] = v
				}
			}
		}
	}
	return best[len(best)-1] / float64(R)
}

func popcount(m int) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// Decompose fits a rank-cfg.Rank CP model to x by alternating least squares
// (see the package documentation for the algorithm and conventions).
func Decompose(ctx context.Context, x *tensor.Dense, cfg Config) (Kruskal, error) {
	cfg, err := cfg.check(x.Shape())
	if err != nil {
		return Kruskal{}, err
	}
	ws := newWorkspace(x.Shape(), cfg.Rank, true)
	var rng *rand.Rand
	if cfg.Init == Random {
		rng = rand.New(srcOrDefault(cfg.Src))
	}
	return ws.decompose(ctx, x.Data(), cfg, rng)
}

func srcOrDefault(src rand.Source) rand.Source {
	if src == nil {
		return rand.NewPCG(1, 2)
	}
	return src
}

// sortAndSign applies the sign convention and sorts components by weight.
func finish(lambda []float64, factors [][]float64, shape []int, R int) Kruskal {
	N := len(shape)
	// Columns with zero weight get a canonical direction e_0.
	for r := range R {
		if lambda[r] == 0 || math.IsNaN(lambda[r]) {
			lambda[r] = 0
			for n := range N {
				f := factors[n]
				for i := range shape[n] {
					f[i*R+r] = 0
				}
				f[r] = 1
			}
		}
	}
	for n := 0; n < N-1; n++ {
		f := factors[n]
		for r := range R {
			bi, bv := 0, -1.0
			for i := range shape[n] {
				if v := math.Abs(f[i*R+r]); v > bv {
					bi, bv = i, v
				}
			}
			if f[bi*R+r] < 0 {
				for _, m := range []int{n, N - 1} {
					g := factors[m]
					for i := range shape[m] {
						g[i*R+r] = -g[i*R+r]
					}
				}
			}
		}
	}
	var obuf [smallRank]int
	order := obuf[:0]
	if R > smallRank {
		order = make([]int, 0, R)
	}
	// Stable insertion sort by λ descending (R is small).
	for r := range R {
		order = append(order, r)
		for j := len(order) - 1; j > 0 && lambda[order[j]] > lambda[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	k := Kruskal{Weights: make([]float64, R), Factors: make([]*mat.Dense, N)}
	total := 0
	for _, s := range shape {
		total += s * R
	}
	buf := make([]float64, total)
	for n := range N {
		d := buf[: shape[n]*R : shape[n]*R]
		buf = buf[shape[n]*R:]
		f := factors[n]
		for i := range shape[n] {
			for r, o := range order {
				d[i*R+r] = f[i*R+o]
			}
		}
		k.Factors[n] = mat.NewDense(shape[n], R, d)
	}
	for r, o := range order {
		k.Weights[r] = lambda[o]
	}
	return k
}
