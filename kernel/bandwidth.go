package kernel

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"gonum.org/v1/gonum/mat"
)

// ScaleGamma returns scikit-learn's gamma='scale' for the n × d matrix X:
// γ = 1/(d·Var(X)), with Var the population variance (divisor n·d) of all n·d
// entries, as NumPy's X.var(). When the variance is zero (constant data) it
// returns 1, as scikit-learn does. A *sparse.CSR X is read through its
// non-zeros (its implicit zeros count as entries). It panics on an empty X.
func ScaleGamma(X mat.Matrix) float64 {
	X = csr.Input(X)

	n, d := X.Dims()
	if n == 0 || d == 0 {
		panic("kernel: ScaleGamma of an empty matrix")
	}
	N := float64(n) * float64(d)
	// Both passes sum plainly within blocks of about sumBlock entries and
	// add the block sums with compensation (Neumaier), so γ does not depend
	// on the order of the entries beyond a few ulp — a plain running sum
	// over 10⁶ entries drifts by ~1e-11 relative, enough to make a sharded
	// fit (package beam) and an in-process fit draw visibly different
	// frequencies — at nearly the cost of a plain sum.
	// The entries are first divided by a power of two near their largest
	// magnitude: exact for every float64 not deep in the subnormals, and it
	// keeps the squares finite when the data are near the ends of the
	// float64 range (γ is then divided by the same factor squared).
	inv, scale := unitScale(X)
	var v float64
	if s, ok := X.(*sparse.CSR); ok {
		// Two passes over the non-zeros; the (N − nnz) zeros each add μ².
		var sum, ss blockSum
		s.DoNonZero(func(_, _ int, x float64) { sum.add(x * inv) })
		mu := sum.value() / N
		s.DoNonZero(func(_, _ int, x float64) { x = x*inv - mu; ss.add(x * x) })
		v = (ss.value() + (N-float64(s.NNZ()))*mu*mu) / N
	} else {
		r := newRowset(X)
		var sum, ss blockSum
		for i := 0; i < n; i++ {
			var p float64
			for _, x := range r.denseRow(i) {
				p += x * inv
			}
			sum.addRow(p, d)
		}
		mu := sum.value() / N
		for i := 0; i < n; i++ {
			var p float64
			for _, x := range r.denseRow(i) {
				x = x*inv - mu
				p += x * x
			}
			ss.addRow(p, d)
		}
		v = ss.value() / N
	}
	if v == 0 {
		return 1
	}
	return 1 / (float64(d) * v) / scale / scale
}

// unitScale returns 2^−e and 2^e for the e with 2^(e−1) ≤ max|x_ij| < 2^e
// (1 and 1 when X is all zeros or not finite; e ≥ −1020).
func unitScale(X mat.Matrix) (inv, scale float64) {
	var m float64
	switch x := X.(type) {
	case *sparse.CSR:
		x.DoNonZero(func(_, _ int, v float64) { m = math.Max(m, math.Abs(v)) })
	default:
		r := newRowset(X)
		n, _ := X.Dims()
		for i := 0; i < n; i++ {
			for _, v := range r.denseRow(i) {
				m = math.Max(m, math.Abs(v))
			}
		}
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return 1, 1
	}
	_, e := math.Frexp(m)
	e = max(e, -1020) // subnormal data: 2^−e must stay finite
	return math.Ldexp(1, -e), math.Ldexp(1, e)
}

// MedianPairs is the largest number of pairs MedianGamma looks at.
const MedianPairs = 10000

// MedianGamma returns the median heuristic γ = 1/m for the RBF kernel
// exp(−γ‖x−y‖²), where m is the median of the squared distances ‖x_i − x_j‖²
// over pairs i < j of rows of X. When X has at most MedianPairs pairs
// (n(n−1)/2 ≤ 10,000, i.e. n ≤ 141) every pair is used; otherwise
// MedianPairs pairs (i, j), i ≠ j, are drawn uniformly with replacement
// from src. The median of an even count is the mean of the two middle values
// (NumPy's convention); src may be nil when no sampling is needed. If that median is 0 (more than half of the pairs are
// duplicates) the median of the non-zero squared distances is used instead,
// and if every distance is 0 the result is 1.
//
// In terms of a bandwidth σ with k = exp(−‖x−y‖²/(2σ²)), this is
// σ² = m/2, i.e. σ = median distance / √2; conventions that set σ to the
// median distance itself give half this γ. It panics if X has fewer than 2
// rows.
func MedianGamma(X mat.Matrix, src rand.Source) float64 {
	X = csr.Input(X)

	n, _ := X.Dims()
	if n < 2 {
		panic("kernel: MedianGamma needs at least 2 rows")
	}
	r := newRowset(X)
	dist := func(i, j int) float64 {
		if r.csr != nil {
			xi, xv := csr.Row(r.csr, i)
			yi, yv := csr.Row(r.csr, j)
			return sparseSqDist(xi, xv, yi, yv)
		}
		return SqDist(r.denseRow(i), r.denseRow(j))
	}
	var d []float64
	if total := n * (n - 1) / 2; total <= MedianPairs {
		d = make([]float64, 0, total)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				d = append(d, dist(i, j))
			}
		}
	} else {
		if src == nil {
			panic("kernel: MedianGamma needs a rand.Source for more than 141 rows")
		}
		rng := rand.New(src)
		d = make([]float64, MedianPairs)
		for t := range d {
			i := rng.IntN(n)
			j := rng.IntN(n - 1)
			if j >= i {
				j++
			}
			d[t] = dist(i, j)
		}
	}
	sort.Float64s(d)
	m := median(d)
	if m == 0 {
		k := sort.SearchFloat64s(d, math.SmallestNonzeroFloat64)
		if k == len(d) {
			return 1
		}
		m = median(d[k:])
	}
	return 1 / m
}

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// Scott returns Scott's factor n^(−1/(d+4)) for n samples in d dimensions:
// scikit-learn's KernelDensity(bandwidth='scott'), which uses the bare
// factor as the bandwidth (it does not multiply it by the data's standard
// deviation as scipy's gaussian_kde does).
func Scott(n, d int) float64 {
	return math.Pow(float64(n), -1/float64(d+4))
}

// Silverman returns Silverman's factor (n(d+2)/4)^(−1/(d+4)), as
// scikit-learn's KernelDensity(bandwidth='silverman') (bare factor, see
// Scott).
func Silverman(n, d int) float64 {
	return math.Pow(float64(n)*float64(d+2)/4, -1/float64(d+4))
}

// sumBlock is the number of entries blockSum adds plainly before carrying
// the partial sum into its compensated total.
const sumBlock = 1024

// blockSum adds values plainly in blocks of about sumBlock entries and the
// block sums with compensation.
type blockSum struct {
	total neumaier
	part  float64
	count int
}

func (b *blockSum) add(x float64) { b.addRow(x, 1) }

// addRow adds the plain sum p of k entries.
func (b *blockSum) addRow(p float64, k int) {
	b.part += p
	if b.count += k; b.count >= sumBlock {
		b.total.add(b.part)
		b.part, b.count = 0, 0
	}
}

func (b *blockSum) value() float64 {
	t := b.total
	t.add(b.part)
	return t.value()
}

// neumaier is a compensated running sum (Kahan–Babuška–Neumaier): the
// rounding error of each addition is carried in c.
type neumaier struct{ s, c float64 }

func (k *neumaier) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *neumaier) value() float64 { return k.s + k.c }
