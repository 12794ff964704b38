package dataset

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// ClassAnomalyShare is the share of anomalies in a data set built by the
// class protocol (ClassSplit).
const ClassAnomalyShare = 0.05

// ClassSplit is the class protocol for data sets labelled by class (the
// tensor files): the rows of class normal are normal, and anomalies are
// drawn without replacement, uniformly from the rows of every other class,
// until they make up ClassAnomalyShare (5%) of the set: k = max(2,
// round(0.05/0.95 · n_normal)) anomalies, capped at the rows available (at
// least 2, so that a stratified split can put one in each part). The draw
// uses a PCG source seeded with (seed, normal). The set then goes through
// the ADBench protocol (SplitADBench with the same seed: a 70/30
// stratified split and min-max scaling fit on the train part), so the
// training part holds about 5% unlabelled anomalies as in the ADBench
// runs.
func ClassSplit(ds *Dataset, normal int, seed uint64) (train, test *Dataset, err error) {
	sub, err := classSubset(ds, normal, seed)
	if err != nil {
		return nil, nil, err
	}
	return SplitADBench(sub, seed)
}

// ClassSplitRaw is ClassSplit without the min-max scaling (SplitADBenchRaw).
func ClassSplitRaw(ds *Dataset, normal int, seed uint64) (train, test *Dataset, err error) {
	sub, err := classSubset(ds, normal, seed)
	if err != nil {
		return nil, nil, err
	}
	return SplitADBenchRaw(sub, seed)
}

// classSubset draws the rows of the class protocol: every row of the
// normal class and anomalies from the others, labelled 0 and 1.
func classSubset(ds *Dataset, normal int, seed uint64) (*Dataset, error) {
	if ds.Class == nil {
		return nil, fmt.Errorf("dataset: %s has no class labels for the class protocol", ds.Source)
	}
	var norm, other []int
	for i, c := range ds.Class {
		switch {
		case c == normal:
			norm = append(norm, i)
		case c >= 0:
			other = append(other, i)
		}
	}
	if len(norm) < 2 || len(other) < 2 {
		return nil, fmt.Errorf("dataset: %s: class %d has %d rows and the other classes %d; need 2 of each", ds.Source, normal, len(norm), len(other))
	}
	k := int(math.Round(ClassAnomalyShare / (1 - ClassAnomalyShare) * float64(len(norm))))
	k = min(max(k, 2), len(other))
	rng := rand.New(rand.NewPCG(seed, uint64(normal)))
	rng.Shuffle(len(other), func(a, b int) { other[a], other[b] = other[b], other[a] })
	idx := append(slices.Clone(norm), other[:k]...)
	slices.Sort(idx)
	sub := Subset(ds, idx)
	y := make([]int, len(idx))
	for i, c := range sub.Class {
		if c != normal {
			y[i] = 1
		}
	}
	sub.Y, sub.Class, sub.Split = y, nil, nil
	return sub, nil
}

// signLabels reads labels y that hold only 1 and −1, with the 1s more
// than half of the rows, by the one-class convention of scikit-learn and
// LIBSVM (+1 normal, −1 anomaly), in place, and returns a note saying so;
// otherwise it leaves y as it is and returns "". Read by this package's
// convention (1 = anomaly, −1 = unlabeled) such labels would make most
// rows anomalies, which no contamination allows (it is at most 0.5), and
// a semi-supervised fit would take the normal rows for its labelled
// anomalies. With the 1s at most half, they are this package's labelled
// anomalies among unlabeled rows.
func signLabels(y []int) string {
	var c labelCount
	for _, v := range y {
		c.add(v)
	}
	if !c.oneClass() {
		return ""
	}
	for i, v := range y {
		y[i] = (1 - v) / 2 // 1 → 0 (normal), −1 → 1 (anomaly)
	}
	return c.note()
}

// labelCount counts labels as they are read, for the rule of signLabels,
// which a file read in chunks can apply only once its last row is read.
type labelCount struct {
	n, ones, others int // labels, 1s, labels neither 1 nor −1
}

func (c *labelCount) add(v int) {
	c.n++
	switch v {
	case 1:
		c.ones++
	case -1:
	default:
		c.others++
	}
}

// oneClass reports whether the labels counted are only 1 and −1 with the
// 1s a majority (but not all): signLabels' one-class convention.
func (c labelCount) oneClass() bool {
	return c.others == 0 && c.ones != c.n && 2*c.ones > c.n
}

// note is the note of labels read by the one-class convention.
func (c labelCount) note() string {
	return fmt.Sprintf("labels 1/-1 are read by the one-class convention of scikit-learn and LIBSVM, 1 normal and -1 anomaly (%d anomalies): read as 1 = anomaly, -1 = unlabeled, %d of the %d rows would be anomalies (write 1 = anomaly, 0 = normal, -1 = unlabeled for that)", c.n-c.ones, c.ones, c.n)
}
