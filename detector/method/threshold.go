package method

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/csr"
)

// DefaultContamination is the share of training rows flagged when a method's
// configuration leaves the contamination rate at zero.
const DefaultContamination = 0.1

// ThresholdFromScores returns the (1−c) quantile of the training scores, with
// linear interpolation between order statistics (NumPy's default percentile).
// Rows scoring strictly above it are anomalies. Infinite scores are allowed
// (finite-support kernel densities produce +Inf): when the quantile itself
// is +Inf the threshold is the largest finite score, so every infinitely
// anomalous row is flagged; the threshold is never infinite. NaN scores make it panic,
// since a detector must never produce them. scores is not modified.
func ThresholdFromScores(scores []float64, c float64) float64 {
	if len(scores) == 0 {
		panic("method: no training scores")
	}
	if !(c > 0 && c <= 0.5) {
		panic(fmt.Sprintf("method: contamination %v out of (0, 0.5]", c))
	}
	return thresholdOfSorted(sortedScores(scores), c)
}

// sortedScores returns a sorted copy of training scores, panicking on a
// NaN (Fit reports NaN scores before it sets a threshold).
func sortedScores(scores []float64) []float64 {
	s := append([]float64(nil), scores...)
	for _, v := range s {
		if math.IsNaN(v) {
			panic("method: NaN training score")
		}
	}
	sort.Float64s(s)
	return s
}

// thresholdOfSorted is ThresholdFromScores of scores already sorted.
func thresholdOfSorted(s []float64, c float64) float64 {
	pos := (1 - c) * float64(len(s)-1)
	lo := int(math.Floor(pos))
	hi := lo + 1
	if hi >= len(s) {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	a, b := s[lo], s[hi]
	var q float64
	switch {
	case frac == 0 || a == b:
		q = a
	case math.IsInf(b, 1):
		q = a
	case math.IsInf(a, -1):
		q = b
	default:
		q = a + frac*(b-a)
	}
	if math.IsInf(q, 1) {
		// More than a share c of the rows score +Inf (finite-support
		// densities): flag all of them by thresholding at the largest
		// finite score.
		q = -math.MaxFloat64
		for i := len(s) - 1; i >= 0; i-- {
			if !math.IsInf(s[i], 1) {
				q = s[i]
				break
			}
		}
	}
	if math.IsInf(q, -1) {
		// Most rows score −Inf: every finite score is above this, the
		// −Inf rows are not, as with a threshold of −Inf, and the
		// threshold stays a finite number a model file can hold.
		q = -math.MaxFloat64
	}
	return q
}

// thresholdAndWarning returns the threshold the training scores train
// give at contamination c (ThresholdFromScores) and the fit's
// warning: the method's caution, or a degenerate model the scores show
// (every score equal, a tie larger than the unflagged share, a single
// training row, too few scored rows for the contamination), or "". rows
// is the number of training rows (train may score a sample of them);
// tieCause completes the tie warnings with the method's second cause and
// advice.
func thresholdAndWarning(method string, c float64, caution string, train []float64, rows int, tieCause func() (cause, hint string)) (float64, string) {
	if !(c > 0 && c <= 0.5) {
		panic(fmt.Sprintf("method: contamination %v out of (0, 0.5]", c))
	}
	threshold := ThresholdFromScores(train, c)
	switch {
	case caution != "":
		return threshold, caution
	case allEqual(train):
		cause, hint := tieCause()
		return threshold, fmt.Sprintf("%s: every training score is %v, so the model cannot rank rows: the data are constant%s (%s)", method, train[0]+0, cause, hint)
	}
	sorted := slices.Clone(train) // after the threshold's own copy is garbage
	slices.Sort(sorted)
	if tie, v := modeOfSorted(sorted); tie < len(train) && float64(tie) > (1-c)*float64(len(train)) {
		// A single 1e15 in one column, at scale=none: the width rule
		// followed it, and ocsvm, svdd and kde gave the other 59 of 60
		// rows one score, with no warning.
		cause, hint := tieCause()
		return threshold, fmt.Sprintf("%s: %d of the %d training scores are equal (%v), more than the 1 − contamination share the threshold leaves unflagged: the model tells apart only the %d rows outside that tie. The data hold that many copies of one row%s (%s)", method, tie, len(train), v+0, len(train)-tie, cause, hint)
	}
	if rows == 1 {
		return threshold, fmt.Sprintf("%s: fitted on a single row: the threshold is that row's own score, and a model of one point says little about which rows are typical (fit on more rows)", method)
	}
	if m := len(train); m < rows && float64(m)*c < 1 {
		// threshold_rows=1: the threshold was one row's score, and
		// scoring the training rows flagged 92 of 100 (expose) or 54 of
		// 100 (kde) at contamination 0.1.
		return threshold, fmt.Sprintf("%s: the threshold is set from the scores of %d of the %d training rows, too few to hold one expected anomaly at contamination %v (1/contamination = %v rows): it flags an arbitrary share of the rows (score more: threshold_rows, or stage_rows under the sgd solver of expose; -1 for all rows)", method, m, rows, c, 1/c)
	}
	return threshold, ""
}

// modeOfSorted returns how many values of the sorted s equal its most
// frequent value, and that value.
func modeOfSorted(s []float64) (int, float64) {
	best, val := 0, 0.0
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if j-i > best {
			best, val = j-i, s[i]
		}
		i = j
	}
	return best, val
}

func allEqual(v []float64) bool {
	for _, x := range v[1:] {
		if x != v[0] {
			return false
		}
	}
	return len(v) > 1
}

// reservoir draws a uniform sample of k rows from a stream whose length
// is not known in advance (Algorithm R: row t replaces a random slot with
// probability k/(t+1)), holding k rows.
type reservoir struct {
	k, cols int
	sparse  bool
	rng     *rand.Rand
	seen    int
	idx     []int
	dense   [][]float64
	ind     [][]int
}

func newReservoir(k, cols int, sparse bool, rng *rand.Rand) *reservoir {
	return &reservoir{k: k, cols: cols, sparse: sparse, rng: rng}
}

// add offers the rows of a chunk whose first row is row lo.
func (r *reservoir) add(lo int, X mat.Matrix) {
	n, _ := X.Dims()
	sp, _ := X.(*sparse.CSR)
	for i := range n {
		t := r.seen
		r.seen++
		slot := len(r.idx)
		if slot >= r.k {
			if slot = r.rng.IntN(t + 1); slot >= r.k {
				continue
			}
		} else {
			r.idx = append(r.idx, 0)
			r.dense = append(r.dense, nil)
			r.ind = append(r.ind, nil)
		}
		r.idx[slot] = lo + i
		if sp != nil {
			ind, val := csr.Row(sp, i)
			r.ind[slot], r.dense[slot] = slices.Clone(ind), slices.Clone(val)
		} else {
			r.dense[slot] = mat.Row(r.dense[slot], i, X)
		}
	}
}

// rows returns the sample in the order of the data, and its indices.
func (r *reservoir) rows() (mat.Matrix, []int) {
	order := make([]int, len(r.idx))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return r.idx[a] - r.idx[b] })
	idx := make([]int, len(order))
	for k, o := range order {
		idx[k] = r.idx[o]
	}
	if r.sparse {
		b := csr.NewBuilder(r.cols)
		for _, o := range order {
			if err := b.AddRow(r.ind[o], r.dense[o]); err != nil {
				panic("method: " + err.Error()) // rows of a valid CSR
			}
		}
		return b.Build(r.cols), idx
	}
	out := mat.NewDense(max(len(order), 1), r.cols, nil)
	for k, o := range order {
		copy(out.RawRowView(k), r.dense[o])
	}
	return out, idx
}
