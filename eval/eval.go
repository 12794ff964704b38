package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Check returns nil when scores and y can be evaluated, and otherwise an
// error naming the first problem: no rows, a NaN score, a label other than
// 0 or 1, or labels of a single class. It panics when the lengths differ.
func Check(scores []float64, y []int) error {
	checkLen(scores, y)
	if len(scores) == 0 {
		return fmt.Errorf("eval: no rows to evaluate")
	}
	var pos, neg int
	for i, s := range scores {
		if math.IsNaN(s) {
			return fmt.Errorf("eval: score of row %d is NaN", i+1)
		}
		switch y[i] {
		case 1:
			pos++
		case 0:
			neg++
		default:
			return fmt.Errorf("eval: label of row %d is %d; labels must be 1 (anomaly) or 0 (normal)", i+1, y[i])
		}
	}
	if pos == 0 || neg == 0 {
		return fmt.Errorf("eval: labels hold only one class (%d anomalies, %d normal rows); both are needed", pos, neg)
	}
	return nil
}

func checkLen(scores []float64, y []int) {
	if len(scores) != len(y) {
		panic(fmt.Sprintf("eval: %d scores but %d labels", len(scores), len(y)))
	}
}

// curve holds the cumulative counts at each distinct score, in decreasing
// order of score: tp[k] and fp[k] count the positive and negative rows
// scoring ≥ thr[k]. pos and neg are the class totals.
type curve struct {
	thr      []float64
	tp, fp   []int
	pos, neg int
}

// newCurve sorts the rows by decreasing score and groups ties. ok is false
// when Check fails.
func newCurve(scores []float64, y []int) (c curve, ok bool) {
	if Check(scores, y) != nil {
		return curve{}, false
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	var tp, fp int
	for k, i := range idx {
		if y[i] == 1 {
			tp++
		} else {
			fp++
		}
		// Close a group at the last row or when the next score differs.
		if k == len(idx)-1 || scores[idx[k+1]] != scores[i] {
			c.thr = append(c.thr, scores[i])
			c.tp = append(c.tp, tp)
			c.fp = append(c.fp, fp)
		}
	}
	c.pos, c.neg = tp, fp
	return c, true
}

// AUCROC returns the area under the ROC curve of scores against labels y
// (1 = anomaly), ties counting one half: scikit-learn's roc_auc_score. It
// returns NaN when [Check] fails.
func AUCROC(scores []float64, y []int) float64 {
	c, ok := newCurve(scores, y)
	if !ok {
		return math.NaN()
	}
	// Twice the area in units of one (positive, negative) pair: a group
	// with dp positives and dn negatives adds dn·(2·TP_before + dp). The sum
	// is at most 2·P·N, exact in an int.
	var twice, tpPrev, fpPrev int
	for k := range c.thr {
		dp, dn := c.tp[k]-tpPrev, c.fp[k]-fpPrev
		twice += dn * (2*tpPrev + dp)
		tpPrev, fpPrev = c.tp[k], c.fp[k]
	}
	return float64(twice) / (2 * float64(c.pos) * float64(c.neg))
}

// AveragePrecision returns the step-wise area under the precision–recall
// curve, Σ (R_k − R_{k−1})·P_k over the distinct scores in decreasing order:
// scikit-learn's average_precision_score. It returns NaN when [Check] fails.
func AveragePrecision(scores []float64, y []int) float64 {
	c, ok := newCurve(scores, y)
	if !ok {
		return math.NaN()
	}
	// Sum dp·precision and divide by P once: all-precise rankings give
	// exactly 1.
	var sum float64
	tpPrev := 0
	for k := range c.thr {
		if dp := c.tp[k] - tpPrev; dp > 0 {
			sum += float64(dp) * float64(c.tp[k]) / float64(c.tp[k]+c.fp[k])
		}
		tpPrev = c.tp[k]
	}
	return sum / float64(c.pos)
}

// PrecisionAtN returns the share of anomalies among the n highest-scored
// rows. n ≤ 0 means the number of anomalies in y (R-precision); n above the
// number of rows means all rows. When the n-th highest score is tied with
// rows outside the top n, the tie group counts with its expected share of
// anomalies, so the result does not depend on the order of the rows. It
// returns NaN when [Check] fails.
func PrecisionAtN(scores []float64, y []int, n int) float64 {
	c, ok := newCurve(scores, y)
	if !ok {
		return math.NaN()
	}
	if n <= 0 {
		n = c.pos
	}
	n = min(n, len(scores))
	var tpPrev, nPrev int
	for k := range c.thr {
		nk := c.tp[k] + c.fp[k]
		if nk >= n {
			// The group k straddles (or ends at) the cut: take n−nPrev of its
			// nk−nPrev rows at its share of positives.
			share := float64(c.tp[k]-tpPrev) / float64(nk-nPrev)
			return (float64(tpPrev) + float64(n-nPrev)*share) / float64(n)
		}
		tpPrev, nPrev = c.tp[k], nk
	}
	panic("eval: unreachable")
}

// BestF1 returns the largest F1 score, 2·TP/(TP+FP+P), over all thresholds,
// and the threshold reaching it: rows scoring ≥ threshold are flagged. (The
// detectors' Threshold flags rows scoring strictly above it.) When several
// thresholds reach the same F1 the highest is returned. It returns NaN, NaN
// when [Check] fails.
func BestF1(scores []float64, y []int) (f1, threshold float64) {
	c, ok := newCurve(scores, y)
	if !ok {
		return math.NaN(), math.NaN()
	}
	f1 = -1
	for k, t := range c.thr {
		f := 2 * float64(c.tp[k]) / float64(c.tp[k]+c.fp[k]+c.pos)
		if f > f1 {
			f1, threshold = f, t
		}
	}
	return f1, threshold
}

// ROC returns the points of the ROC curve: fpr[k] = FP/N and tpr[k] = TP/P
// when rows scoring ≥ thr[k] are flagged. thr holds the distinct scores in
// decreasing order, led by an extra +Inf at the point (0, 0) — with +Inf
// scores present, thr therefore starts with two +Inf entries. This is
// scikit-learn's roc_curve with drop_intermediate=False. It returns nil
// slices when [Check] fails.
func ROC(scores []float64, y []int) (fpr, tpr, thr []float64) {
	c, ok := newCurve(scores, y)
	if !ok {
		return nil, nil, nil
	}
	m := len(c.thr) + 1
	fpr, tpr, thr = make([]float64, m), make([]float64, m), make([]float64, m)
	thr[0] = math.Inf(1)
	for k, t := range c.thr {
		fpr[k+1] = float64(c.fp[k]) / float64(c.neg)
		tpr[k+1] = float64(c.tp[k]) / float64(c.pos)
		thr[k+1] = t
	}
	return fpr, tpr, thr
}

// PR returns the points of the precision–recall curve in scikit-learn's
// layout (precision_recall_curve): thr holds the distinct scores in
// increasing order; precision[k] = TP/(TP+FP) and recall[k] = TP/P when rows
// scoring ≥ thr[k] are flagged; precision and recall have one more entry
// than thr, the end point precision 1, recall 0. It returns nil slices when
// [Check] fails.
func PR(scores []float64, y []int) (precision, recall, thr []float64) {
	c, ok := newCurve(scores, y)
	if !ok {
		return nil, nil, nil
	}
	m := len(c.thr)
	precision, recall, thr = make([]float64, m+1), make([]float64, m+1), make([]float64, m)
	for k, t := range c.thr {
		j := m - 1 - k
		precision[j] = float64(c.tp[k]) / float64(c.tp[k]+c.fp[k])
		recall[j] = float64(c.tp[k]) / float64(c.pos)
		thr[j] = t
	}
	precision[m], recall[m] = 1, 0
	return precision, recall, thr
}
