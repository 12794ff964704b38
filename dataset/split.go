package dataset

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/scale"
	"gonum.org/v1/gonum/mat"
)

// StratifiedSplit splits the rows 0..len(y)−1 into a train and a test part
// keeping the proportion of every label value in both, like scikit-learn's
// train_test_split(test_size=testFrac, stratify=y).
//
// Rounding, as scikit-learn: the test part has n_test = ⌈testFrac·n⌉ rows
// and the train part n_train = n − n_test. Each class c of size n_c gets
// ⌊n_train·n_c/n⌋ train rows, and the rows still missing go one each to the
// classes with the largest fractional parts (ties broken at random from
// src); the rest of the class is test. Within a class the rows are chosen by
// a random shuffle from src. Both index lists are returned sorted.
//
// It panics if testFrac is not in (0, 1) or src is nil.
func StratifiedSplit(y []int, testFrac float64, src rand.Source) (train, test []int) {
	if !(testFrac > 0 && testFrac < 1) {
		panic(fmt.Sprintf("dataset: StratifiedSplit test fraction %v not in (0, 1)", testFrac))
	}
	nTest := int(math.Ceil(testFrac * float64(len(y))))
	return stratify(y, len(y)-nTest, src)
}

// StratifiedSubsample returns n row indices drawn without replacement,
// keeping the proportion of every label value in y, with the rounding of
// StratifiedSplit (it is the train part of a split with n_train = n, like
// scikit-learn's train_test_split(train_size=n, stratify=y)). The indices
// are sorted. If n ≥ len(y) it returns every index. It panics if n < 0 or
// src is nil.
func StratifiedSubsample(y []int, n int, src rand.Source) []int {
	if n < 0 {
		panic("dataset: StratifiedSubsample with negative n")
	}
	if n >= len(y) {
		idx := make([]int, len(y))
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	train, _ := stratify(y, n, src)
	return train
}

// stratify draws nTrain rows stratified by y; the others are test.
func stratify(y []int, nTrain int, src rand.Source) (train, test []int) {
	if src == nil {
		panic("dataset: nil rand.Source")
	}
	rng := rand.New(src)
	byClass := map[int][]int{}
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	classes := make([]int, 0, len(byClass))
	for c := range byClass {
		classes = append(classes, c)
	}
	sort.Ints(classes)
	n := len(y)
	take := make([]int, len(classes))
	rem := make([]float64, len(classes))
	left := nTrain
	for k, c := range classes {
		exact := float64(nTrain) * float64(len(byClass[c])) / float64(n)
		take[k] = int(math.Floor(exact))
		rem[k] = exact - float64(take[k])
		left -= take[k]
	}
	// Largest remainders first; equal remainders in random order.
	order := rng.Perm(len(classes))
	sort.SliceStable(order, func(a, b int) bool { return rem[order[a]] > rem[order[b]] })
	for _, k := range order {
		if left == 0 {
			break
		}
		if take[k] < len(byClass[classes[k]]) {
			take[k]++
			left--
		}
	}
	for k, c := range classes {
		rows := byClass[c]
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		train = append(train, rows[:take[k]]...)
		test = append(test, rows[take[k]:]...)
	}
	slices.Sort(train)
	slices.Sort(test)
	return train, test
}

// Subset returns the rows idx of ds (in that order) as a new data set; X is
// copied (a *mat.Dense stays dense, a *sparse.CSR stays sparse) and the
// per-row fields Y, Class and Split follow. An empty idx gives an empty
// *mat.Dense (gonum has no 0 × d matrix). It panics on an index out of range.
func Subset(ds *Dataset, idx []int) *Dataset {
	out := &Dataset{
		Shape:         slices.Clone(ds.Shape),
		Columns:       slices.Clone(ds.Columns),
		ColumnNumbers: slices.Clone(ds.ColumnNumbers),
		Source:        ds.Source,
	}
	_, c := ds.X.Dims()
	switch m := ds.X.(type) {
	case *sparse.CSR:
		indptr := make([]int, len(idx)+1)
		var ind []int
		var data []float64
		for k, i := range idx {
			ri, rv := csr.Row(m, i)
			ind = append(ind, ri...)
			data = append(data, rv...)
			indptr[k+1] = len(ind)
		}
		out.X = sparse.NewCSR(len(idx), c, indptr, ind, data)
	default:
		if len(idx) == 0 || c == 0 {
			out.X = &mat.Dense{} // gonum has no 0 × c matrix
			break
		}
		dst := mat.NewDense(len(idx), c, nil)
		row := make([]float64, c)
		for k, i := range idx {
			if dm, ok := m.(*mat.Dense); ok {
				dst.SetRow(k, dm.RawRowView(i))
				continue
			}
			mat.Row(row, i, m)
			dst.SetRow(k, row)
		}
		out.X = dst
	}
	pick := func(v []int) []int {
		if v == nil {
			return nil
		}
		o := make([]int, len(idx))
		for k, i := range idx {
			o[k] = v[i]
		}
		return o
	}
	out.Y, out.Class, out.Split = pick(ds.Y), pick(ds.Class), pick(ds.Split)
	return out
}

// ADBenchMaxRows is the size above which SplitADBench subsamples.
const ADBenchMaxRows = 10000

// SplitADBench applies the ADBench protocol of the project's reference runs
// (shared/anchors/peers.py): if ds has more than 10,000 rows, a stratified
// subsample of 10,000 rows; a 70/30 stratified train/test split; min-max
// scaling fit on the train part and applied to both (test values may fall
// outside [0, 1]). Both stratified draws replay scikit-learn's
// train_test_split with random_state = seed (SklearnStratifiedSplit), so
// for seeds below 2³² the rows, and their order, are exactly those of the
// reference figures in shared/anchors/RESULTS.md. It needs labels (ds.Y).
// A sparse X stays sparse when its columns have minimum 0 on the train part
// (non-negative data); otherwise it is an error rather than a densified
// copy.
func SplitADBench(ds *Dataset, seed uint64) (train, test *Dataset, err error) {
	train, test, err = SplitADBenchRaw(ds, seed)
	if err != nil {
		return nil, nil, err
	}
	train.X, test.X, err = scale.Scale(&scale.MinMax{}, train.X, test.X)
	if err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// SplitADBenchRaw is SplitADBench without the min-max scaling: the same
// rows in the data set's own units, as a user brings them (anomaly bench
// --protocol raw).
func SplitADBenchRaw(ds *Dataset, seed uint64) (train, test *Dataset, err error) {
	if ds.Y == nil {
		return nil, nil, errors.New("dataset: the ADBench protocol needs labels (y), and " + name(ds) + " has none")
	}
	n := ds.Rows()
	if n < 4 {
		return nil, nil, fmt.Errorf("dataset: %s has %d rows, too few to split", name(ds), n)
	}
	if seed > math.MaxUint32 {
		return nil, nil, fmt.Errorf("dataset: ADBench seed %d must be below 2^32 (scikit-learn's random_state range)", seed)
	}
	work := ds
	if n > ADBenchMaxRows {
		sub, _, err := SklearnStratifiedSplit(ds.Y, ADBenchMaxRows, n-ADBenchMaxRows, uint32(seed))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name(ds), err)
		}
		work = Subset(ds, sub)
	}
	nTrain, nTest := sklearnTestSize(work.Rows(), 0.3)
	tr, te, err := SklearnStratifiedSplit(work.Y, nTrain, nTest, uint32(seed))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name(ds), err)
	}
	return Subset(work, tr), Subset(work, te), nil
}
