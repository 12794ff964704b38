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
	var m float64
	switch x := X.(type) {
	case *sparse.CSR:
		x.DoNonZero(func(_, _ int, v float64) { m = math.Max(m, math.Abs(v)) })
	default:
		r := newRowset(X)
		for i := 0; i < n; i++ {
			for _, v := range r.denseRow(i) {
				m = math.Max(m, math.Abs(v))
			}
		}
	}
	g, _ := scaleGamma(rowsOf(X), m) // one chunk in memory: no error
	return g
}

// scaleGamma is ScaleGamma of the rows of rs, whose largest magnitude is
// amax: a pass for their mean and one for their squared deviations.
//
// Both passes sum plainly within blocks of about sumBlock entries and add
// the block sums with compensation (Neumaier), so γ does not depend on the
// order of the entries beyond a few ulp — a plain running sum over 10⁶
// entries drifts by ~1e-11 relative, enough to make a sharded fit (package
// beam) and an in-process fit draw visibly different frequencies — at
// nearly the cost of a plain sum. The blocks run on across chunks, so rows
// read in chunks give the γ of the same rows in one matrix, bit for bit.
// The entries are first divided by a power of two near amax: exact for
// every float64 not deep in the subnormals, and it keeps the squares
// finite when the data are near the ends of the float64 range (γ is then
// divided by the same factor squared).
func scaleGamma(rs Rows, amax float64) (float64, error) {
	d := rs.Cols
	N := float64(rs.N) * float64(d)
	inv, scale := unitScale(amax)
	var (
		sum, ss  blockSum
		implicit float64 // the zeros of sparse chunks, each adding μ² to ss
	)
	err := rs.Pass(func(X mat.Matrix) error {
		X = csr.Input(X)
		rows, _ := X.Dims()
		if m, ok := X.(*sparse.CSR); ok {
			m.DoNonZero(func(_, _ int, x float64) { sum.add(x * inv) })
			implicit += float64(rows)*float64(d) - float64(m.NNZ())
			return nil
		}
		r := newRowset(X)
		for i := 0; i < rows; i++ {
			var p float64
			for _, x := range r.denseRow(i) {
				p += x * inv
			}
			sum.addRow(p, d)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	mu := sum.value() / N
	err = rs.Pass(func(X mat.Matrix) error {
		X = csr.Input(X)
		if m, ok := X.(*sparse.CSR); ok {
			m.DoNonZero(func(_, _ int, x float64) { x = x*inv - mu; ss.add(x * x) })
			return nil
		}
		rows, _ := X.Dims()
		r := newRowset(X)
		for i := 0; i < rows; i++ {
			var p float64
			for _, x := range r.denseRow(i) {
				x = x*inv - mu
				p += x * x
			}
			ss.addRow(p, d)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	v := ss.value()
	if implicit > 0 {
		v += implicit * mu * mu
	}
	v /= N
	if v == 0 {
		return 1, nil
	}
	return 1 / (float64(d) * v) / scale / scale, nil
}

// unitScale returns 2^−e and 2^e for the e with 2^(e−1) ≤ amax < 2^e (1
// and 1 when amax is 0 or not finite; e ≥ −1020).
func unitScale(amax float64) (inv, scale float64) {
	if amax == 0 || math.IsInf(amax, 0) || math.IsNaN(amax) {
		return 1, 1
	}
	_, e := math.Frexp(amax)
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
	dist := rowDist(newRowset(X))
	is, js := medianPairs(n, src)
	d := make([]float64, len(is))
	for t := range d {
		d[t] = dist(is[t], js[t])
	}
	return medianGamma(d)
}

// medianPairs returns the pairs of rows MedianGamma measures among n: all
// pairs i < j when there are at most MedianPairs of them, otherwise
// MedianPairs pairs i ≠ j drawn uniformly with replacement from src.
func medianPairs(n int, src rand.Source) (is, js []int) {
	if total := n * (n - 1) / 2; total <= MedianPairs {
		is, js = make([]int, 0, total), make([]int, 0, total)
		for i := 0; i < n; i++ {
			for j := i + 1; j < n; j++ {
				is, js = append(is, i), append(js, j)
			}
		}
		return is, js
	}
	if src == nil {
		panic("kernel: MedianGamma needs a rand.Source for more than 141 rows")
	}
	rng := rand.New(src)
	is, js = make([]int, MedianPairs), make([]int, MedianPairs)
	for t := range is {
		i := rng.IntN(n)
		j := rng.IntN(n - 1)
		if j >= i {
			j++
		}
		is[t], js[t] = i, j
	}
	return is, js
}

// rowDist returns the squared Euclidean distance between rows of r.
func rowDist(r *rowset) func(i, j int) float64 {
	if r.csr != nil {
		return func(i, j int) float64 {
			xi, xv := csr.Row(r.csr, i)
			yi, yv := csr.Row(r.csr, j)
			return sparseSqDist(xi, xv, yi, yv)
		}
	}
	return func(i, j int) float64 { return SqDist(r.denseRow(i), r.denseRow(j)) }
}

// medianGamma returns MedianGamma's γ from the squared distances d (sorted
// in place).
func medianGamma(d []float64) float64 {
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
