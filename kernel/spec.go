package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/param"
)

// Width rules: how a Spec with Gamma 0 chooses γ from the training data.
const (
	// ScaleRule is scikit-learn's gamma='scale': γ = 1/(d·Var(X)) over all
	// entries (ScaleGamma).
	ScaleRule = "scale"
	// MedianRule is the median heuristic γ = 1/median ‖x_i − x_j‖² over
	// pairs of rows (MedianGamma).
	MedianRule = "median"
	// ScaleScottRule is the scale width shrunk at Scott's rate: γ =
	// ScaleGamma(X)·n^(2/(d+4)), i.e. the Gaussian width h = √(1/(2γ))
	// of the scale rule times Scott's factor n^(−1/(d+4)) (Scott) for the
	// n rows of X in d dimensions.
	ScaleScottRule = "scale_scott"
)

// Spec is a kernel as one configuration value: its kind, its width γ or
// the rule that chooses γ from the training data, and the polynomial
// kernel's coef0 and degree. It parses and validates itself as parameters
// (Bind), resolves its rule on data (Width) and builds the Kernel (New);
// methods save the resolved γ with their state.
type Spec struct {
	// Kind is rbf, laplacian, poly or linear (gaussian and polynomial are
	// accepted aliases); "" means the method's default kind.
	Kind string
	// Gamma > 0 fixes the width; 0 lets Rule choose it from the data.
	Gamma float64
	// Rule is the width rule used when Gamma is 0 (ScaleRule,
	// MedianRule); "" means the method's default rule.
	Rule string
	// Coef0 and Degree parametrise the polynomial kernel
	// (γ xᵀy + coef0)^degree; Degree 0 means 3.
	Coef0  float64
	Degree int
}

// Choices is what a method allows of a Spec: its kinds (the first is the
// default) and its width rules (the first is the default). With PolyParams
// the polynomial kernel's coef0 and degree are parameters too; without, a
// method that allows poly fixes them.
type Choices struct {
	Kinds      []string
	Rules      []string
	PolyParams bool
}

var kindAliases = map[string]string{"gaussian": "rbf", "polynomial": "poly"}

// Bind declares the kernel's parameters: kernel, gamma (a number > 0 or
// one of the rules) and, for methods that allow the polynomial kernel,
// coef0 and degree.
func (k *Spec) Bind(s *param.Set, c Choices) {
	if len(c.Kinds) == 0 || len(c.Rules) == 0 {
		panic("kernel: Spec.Bind needs at least one kind and one rule")
	}
	s.Choice(&k.Kind, "kernel", c.Kinds[0], c.Kinds, kindAliases, "kernel: "+strings.Join(c.Kinds, ", "))
	BindWidth(s, &k.Gamma, &k.Rule, c.Rules)
	if c.PolyParams {
		s.Float(&k.Coef0, "coef0", 0, param.Any, "polynomial kernel offset: (γ xᵀy + coef0)^degree")
		s.Int(&k.Degree, "degree", 3, param.AtLeast(1), "polynomial kernel degree")
	}
}

func ruleHelp(rules []string) string {
	var parts []string
	for _, r := range rules {
		switch r {
		case ScaleRule:
			parts = append(parts, "scale = 1/(d·Var(X))")
		case MedianRule:
			parts = append(parts, "median = 1/median ‖x−y‖²")
		case ScaleScottRule:
			parts = append(parts, "scale_scott = scale·n^(2/(d+4)) (the scale width shrunk at Scott's rate)")
		default:
			parts = append(parts, r)
		}
	}
	return strings.Join(parts, ", ")
}

// BindWidth declares the parameter gamma: a width γ > 0 (*gamma) or one
// of rules (*rule; the first is the default), as Spec.Bind declares it for
// a Spec's Gamma and Rule. It serves methods that choose an RBF width
// without the rest of a Spec (r1svm).
func BindWidth(s *param.Set, gamma *float64, rule *string, rules []string) {
	if len(rules) == 0 {
		panic("kernel: BindWidth needs at least one rule")
	}
	s.Var(&gammaValue{gamma: gamma, rule: rule, rules: rules}, "gamma", rules[0],
		fmt.Sprintf("kernel width γ > 0, or the rule that picks it from the training data: %s", ruleHelp(rules)))
}

// gammaValue binds a width and its rule to one parameter.
type gammaValue struct {
	gamma *float64
	rule  *string
	rules []string
}

func (g *gammaValue) Set(t string) error {
	if slices.Contains(g.rules, t) {
		*g.gamma, *g.rule = 0, t
		return nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		return fmt.Errorf("must be a number > 0, or %s", strings.Join(g.rules, " or "))
	}
	*g.gamma, *g.rule = f, ""
	return nil
}

func (g *gammaValue) String() (string, bool) {
	if *g.gamma > 0 {
		return strconv.FormatFloat(*g.gamma, 'g', -1, 64), true
	}
	if *g.rule == "" {
		return g.rules[0], true
	}
	return *g.rule, true
}

func (g *gammaValue) Resolve() (bool, error) {
	if *g.gamma != 0 {
		if !(*g.gamma > 0) || math.IsInf(*g.gamma, 0) {
			return false, fmt.Errorf("must be a finite number > 0, or 0 for a rule")
		}
		return false, nil
	}
	defaulted := *g.rule == ""
	if defaulted {
		*g.rule = g.rules[0]
	}
	if !slices.Contains(g.rules, *g.rule) {
		return false, fmt.Errorf("unknown width rule %q (want %s)", *g.rule, strings.Join(g.rules, " or "))
	}
	return defaulted, nil
}

// Width returns γ: Gamma when it is set, otherwise the rule's value on the
// training rows X (src draws the median rule's pairs on large X; nil means
// a fixed source, so methods without a seed stay deterministic). Data whose
// squared distances would leave the float64 range is a *RangeError
// (CheckRange) whatever the width.
func (k Spec) Width(X mat.Matrix, src rand.Source) (float64, error) {
	X = csr.Input(X)
	return k.width(rowsOf(X), X, src)
}

// ScaleScottGamma is the scale_scott rule's γ for n rows in d dimensions
// whose scale rule gives γ = scale: the width shrunk by Scott's factor,
// scale·n^(2/(d+4)). Callers that have the scale γ from elsewhere (a
// sample of the rows, distributed moments) count all n rows here.
func ScaleScottGamma(scale float64, n, d int) float64 {
	f := Scott(n, d)
	return scale / (f * f)
}

// WidthError reports a width rule whose γ is not a positive finite number:
// the data's spread is beyond what float64 squared distances can hold
// (values around 1e±160 and beyond), so no kernel width fits it.
type WidthError struct {
	Rule  string
	Gamma float64
}

func (e *WidthError) Error() string {
	return fmt.Sprintf("kernel: the %s width rule gives γ = %v: the data's spread is beyond the float64 range of squared distances; scale the features (scale=standard) or set gamma", e.Rule, e.Gamma)
}

// New returns the kernel of the spec with width gamma.
func (k Spec) New(gamma float64) (Kernel, error) {
	deg := k.Degree
	if deg == 0 {
		deg = 3
	}
	kind := k.Kind
	if kind == "" {
		kind = "rbf"
	}
	return Parse(kind, gamma, k.Coef0, deg)
}

// Fit resolves the width on the training rows X and returns the kernel and
// γ.
func (k Spec) Fit(X mat.Matrix, src rand.Source) (Kernel, float64, error) {
	if k.Kind == "linear" {
		return Linear{}, 0, CheckRange(X)
	}
	g, err := k.Width(X, src)
	if err != nil {
		return nil, 0, err
	}
	kern, err := k.New(g)
	return kern, g, err
}

// isolationExponent is ln(1/ε), ε = 2⁻⁵² float64's relative precision: a
// kernel value exp(−t) with t above it is below ε beside k(x, x) = 1.
var isolationExponent = 52 * math.Ln2

// isolationWork bounds the entries Isolating reads (sample rows squared
// times their length): about 2·10⁷, some tens of milliseconds.
const isolationWork = 2e7

// Isolating reports whether, at width gamma, the rbf or laplacian kernel
// (kind; others are never isolating) gives most rows of X no other row
// with a kernel value above float64's precision beside k(x, x) = 1: the
// median over rows of γ times the squared (rbf) or L1 (laplacian)
// distance to the nearest other row above ln(2⁵²) ≈ 36. The kernel
// matrix of such rows is the identity to rounding: each row resembles
// only itself, and a model on it scores every row it has not seen alike.
//
// It reads a fixed sample (no random state) of m evenly spaced rows, at
// most 1,001 and fewer for wide rows (m²·d ≤ 2·10⁷), finds each one's
// nearest neighbour among them, and scales that distance to what n rows
// give: the nearest of k rows in d dimensions is about k^(−1/d) away, so
// squared distances shrink by (m/n)^(2/d) and L1 ones by (m/n)^(1/d). A
// median over all pairs (the first version) said "isolating" of a
// Gaussian sample of 50,000 rows in one dimension at its default width,
// where every row has thousands of close neighbours. It also returns the
// median exponent.
func Isolating(kind string, X mat.Matrix, gamma float64) (bool, float64) {
	n, _ := X.Dims()
	return IsolatingSample(kind, X, n, gamma)
}

// IsolatingSample is Isolating of n rows of which X holds a uniform random
// sample (or all): the nearest-neighbour distances among the rows it reads
// of X are scaled to what n rows give, so a method that reads a sample of
// a large data set (EXPoSE's SGD, a fit from a file) estimates what its
// every row would show.
func IsolatingSample(kind string, X mat.Matrix, n int, gamma float64) (bool, float64) {
	if kind != "" && kind != "rbf" && kind != "laplacian" {
		return false, 0
	}
	ns, d := X.Dims()
	if n < ns {
		panic("kernel: IsolatingSample of a sample larger than its data")
	}
	if ns < 2 || d == 0 {
		return false, 0
	}
	m := max(2, min(ns, 1001, int(math.Sqrt(isolationWork/float64(d)))))
	pick := func(i int) int { return int(int64(i) * int64(ns-1) / int64(m-1)) } // the i-th of m evenly spaced rows
	power := 2.0
	add := func(s, v float64) float64 { return s + v*v }
	if kind == "laplacian" {
		power = 1
		add = func(s, v float64) float64 { return s + math.Abs(v) }
	}
	var dist func(a, b int) float64
	if sp, ok := csr.Input(X).(*sparse.CSR); ok {
		dist = func(a, b int) float64 { // merge the two rows' sorted non-zeros
			ai, av := csr.Row(sp, pick(a))
			bi, bv := csr.Row(sp, pick(b))
			var s float64
			p, q := 0, 0
			for p < len(ai) || q < len(bi) {
				switch {
				case q == len(bi) || (p < len(ai) && ai[p] < bi[q]):
					s = add(s, av[p])
					p++
				case p == len(ai) || bi[q] < ai[p]:
					s = add(s, bv[q])
					q++
				default:
					s = add(s, av[p]-bv[q])
					p++
					q++
				}
			}
			return s
		}
	} else {
		rows := mat.NewDense(m, d, nil)
		for i := range m {
			mat.Row(rows.RawRowView(i), pick(i), X)
		}
		dist = func(a, b int) float64 {
			ra, rb := rows.RawRowView(a), rows.RawRowView(b)
			var s float64
			for j := range ra {
				s = add(s, ra[j]-rb[j])
			}
			return s
		}
	}
	nn := make([]float64, m)
	for i := range nn {
		nn[i] = math.Inf(1)
	}
	for a := range m {
		for b := a + 1; b < m; b++ {
			s := dist(a, b)
			nn[a], nn[b] = min(nn[a], s), min(nn[b], s)
		}
	}
	shrink := math.Pow(float64(m)/float64(n), power/float64(d))
	for i := range nn {
		nn[i] *= gamma * shrink
	}
	slices.Sort(nn)
	med := nn[len(nn)/2]
	return med > isolationExponent, med
}
