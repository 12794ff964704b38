package dataset

import (
	"fmt"
	"math"
	"sort"

	"github.com/kernelad/anomaly/internal/nprand"
)

// SklearnStratifiedSplit returns the row indices that scikit-learn 1.2's
// train_test_split(…, train_size=nTrain, test_size=nTest, stratify=y,
// random_state=seed) puts in the train and test parts, in the same order.
// It replays StratifiedShuffleSplit on NumPy's legacy MT19937 generator
// (package internal/nprand): per-class counts by the "approximate mode" rule
// with random tie-breaking, one permutation per class (classes in sorted
// order), then a permutation of each part. Every class needs at least two
// rows, as in scikit-learn.
func SklearnStratifiedSplit(y []int, nTrain, nTest int, seed uint32) (train, test []int, err error) {
	classes := map[int]int{}
	for _, v := range y {
		classes[v]++
	}
	keys := make([]int, 0, len(classes))
	for k := range classes {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	counts := make([]int, len(keys))
	index := map[int]int{}
	for i, k := range keys {
		counts[i], index[k] = classes[k], i
		if counts[i] < 2 {
			return nil, nil, fmt.Errorf("dataset: class %d has only %d row; a stratified split needs at least 2 per class", k, counts[i])
		}
	}
	if nTrain < len(keys) || nTest < len(keys) || nTrain+nTest > len(y) {
		return nil, nil, fmt.Errorf("dataset: cannot split %d rows of %d classes into %d train and %d test rows", len(y), len(keys), nTrain, nTest)
	}
	// Row indices of each class in ascending order (a stable argsort).
	byClass := make([][]int, len(keys))
	for i, v := range y {
		c := index[v]
		byClass[c] = append(byClass[c], i)
	}
	rng := nprand.New(seed)
	nI := approximateMode(counts, nTrain, rng)
	rem := make([]int, len(counts))
	for i := range counts {
		rem[i] = counts[i] - nI[i]
	}
	tI := approximateMode(rem, nTest, rng)
	for c := range keys {
		perm := rng.Permutation(counts[c])
		for k, p := range perm {
			switch {
			case k < nI[c]:
				train = append(train, byClass[c][p])
			case k < nI[c]+tI[c]:
				test = append(test, byClass[c][p])
			}
		}
	}
	rng.Shuffle(train)
	rng.Shuffle(test)
	return train, test, nil
}

// approximateMode is scikit-learn's _approximate_mode: floor the
// proportional allocation, then hand out the rows still missing by
// decreasing remainder, breaking ties among equal remainders with
// rng.choice (a permutation prefix).
func approximateMode(counts []int, draws int, rng *nprand.RandomState) []int {
	total := 0
	for _, c := range counts {
		total += c
	}
	cont := make([]float64, len(counts))
	out := make([]int, len(counts))
	floorSum := 0.0
	for i, c := range counts {
		cont[i] = float64(c) / float64(total) * float64(draws)
		f := math.Floor(cont[i])
		out[i] = int(f)
		floorSum += f
	}
	need := int(float64(draws) - floorSum)
	if need <= 0 {
		return out
	}
	remainder := make([]float64, len(counts))
	for i := range cont {
		remainder[i] = cont[i] - math.Floor(cont[i])
	}
	values := append([]float64(nil), remainder...)
	sort.Sort(sort.Reverse(sort.Float64Slice(values)))
	for k, v := range values {
		if k > 0 && v == values[k-1] {
			continue // np.unique
		}
		var inds []int
		for i, r := range remainder {
			if r == v {
				inds = append(inds, i)
			}
		}
		add := min(len(inds), need)
		perm := rng.Permutation(len(inds))
		for _, p := range perm[:add] {
			out[inds[p]]++
		}
		need -= add
		if need == 0 {
			break
		}
	}
	return out
}

// sklearnTestSize is scikit-learn's n_test = ceil(test_size · n) for a
// fractional test_size, n_train = n − n_test.
func sklearnTestSize(n int, frac float64) (nTrain, nTest int) {
	nTest = int(math.Ceil(frac * float64(n)))
	return n - nTest, nTest
}
