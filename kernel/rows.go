package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
)

// Rows is a data set read a chunk of rows at a time, and some rows by
// index, rather than held in one matrix: the training rows of a fit from a
// file larger than memory. Spec.WidthRows reads it as Spec.Width reads a
// matrix, and gives the same γ bit for bit when the chunks, in order, are
// the rows of that matrix.
type Rows struct {
	// N and Cols are the numbers of rows and columns.
	N, Cols int
	// Pass calls fn with every row in order, a chunk of rows at a time (a
	// *mat.Dense, any other mat.Matrix or a *sparse.CSR), and returns fn's
	// first error or its own.
	Pass func(fn func(X mat.Matrix) error) error
	// Read returns the rows idx (ascending, without repeats) as a
	// len(idx) × Cols matrix; only the median rule reads rows by index.
	Read func(idx []int) (mat.Matrix, error)
}

// rowsOf returns X as Rows of one chunk (Read is not needed: Width reads
// the median rule's pairs from X in place).
func rowsOf(X mat.Matrix) Rows {
	n, d := X.Dims()
	return Rows{N: n, Cols: d, Pass: func(fn func(X mat.Matrix) error) error { return fn(X) }}
}

// WidthRows is Width on rows read in passes: one pass checks their range
// (CheckRange), the scale rules make two more (the mean of the entries,
// then their squared deviations), and the median rule reads the rows of
// the pairs it measures (Rows.Read). An error of a pass or a read is
// returned as it is.
func (k Spec) WidthRows(rs Rows, src rand.Source) (float64, error) {
	return k.width(rs, nil, src)
}

// width is Width on rs, which is the matrix X when X is not nil (the
// median rule then reads X's rows in place).
func (k Spec) width(rs Rows, X mat.Matrix, src rand.Source) (float64, error) {
	r, err := columnRanges(rs)
	if err != nil {
		return 0, err
	}
	if err := r.check(); err != nil {
		return 0, err
	}
	if k.Gamma > 0 {
		return k.Gamma, nil
	}
	var g float64
	switch k.Rule {
	case ScaleRule, "", ScaleScottRule:
		if rs.N == 0 || rs.Cols == 0 {
			panic("kernel: ScaleGamma of an empty matrix")
		}
		if g, err = scaleGamma(rs, r.maxAbs()); err != nil {
			return 0, err
		}
		if k.Rule == ScaleScottRule {
			g = ScaleScottGamma(g, rs.N, rs.Cols)
		}
	case MedianRule:
		if rs.N < 2 {
			return 0, fmt.Errorf("kernel: the median width rule needs at least 2 rows")
		}
		if src == nil {
			src = rand.NewPCG(1, 2) // methods without a seed: a fixed sample of pairs
		}
		if X != nil {
			g = MedianGamma(X, src)
		} else if g, err = medianGammaRows(rs, src); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("kernel: unknown width rule %q", k.Rule)
	}
	if !(g > 0) || math.IsInf(g, 0) {
		return 0, &WidthError{Rule: k.Rule, Gamma: g}
	}
	return g, nil
}

// medianGammaRows is MedianGamma of rs: the pairs are drawn first, as
// MedianGamma draws them, and then their rows are read.
func medianGammaRows(rs Rows, src rand.Source) (float64, error) {
	is, js := medianPairs(rs.N, src)
	need := slices.Concat(is, js)
	slices.Sort(need)
	need = slices.Compact(need)
	X, err := rs.Read(need)
	if err != nil {
		return 0, err
	}
	if r, c := X.Dims(); r != len(need) || c != rs.Cols {
		panic(fmt.Sprintf("kernel: Rows.Read returned %d × %d rows for %d × %d", r, c, len(need), rs.Cols))
	}
	at := func(i int) int { k, _ := slices.BinarySearch(need, i); return k }
	dist := rowDist(newRowset(csr.Input(X)))
	d := make([]float64, len(is))
	for t := range d {
		d[t] = dist(at(is[t]), at(js[t]))
	}
	return medianGamma(d), nil
}
