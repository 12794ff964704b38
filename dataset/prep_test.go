package dataset

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

type prepGolden struct {
	Split []struct {
		Counts      []int
		Kw          map[string]float64
		Train, Test []int
	}
}

func TestStratifiedSplitMatchesScikitLearn(t *testing.T) {
	g := testmat.Golden[prepGolden](t, "golden_prep.json") // testdata/golden_prep.py, scikit-learn 1.2.1
	for _, tc := range g.Split {
		var y []int
		for k, c := range tc.Counts {
			for i := 0; i < c; i++ {
				y = append(y, k)
			}
		}
		for seed := uint64(1); seed <= 3; seed++ {
			var train, test []int
			if n, ok := tc.Kw["train_size"]; ok {
				train = StratifiedSubsample(y, int(n), rand.NewPCG(seed, 0))
			} else {
				train, test = StratifiedSplit(y, tc.Kw["test_size"], rand.NewPCG(seed, 0))
			}
			count := func(idx []int) []int {
				c := make([]int, len(tc.Counts))
				for _, i := range idx {
					c[y[i]]++
				}
				return c
			}
			if !slices.Equal(count(train), tc.Train) {
				t.Errorf("%v %v: train per class %v, scikit-learn %v", tc.Counts, tc.Kw, count(train), tc.Train)
			}
			if test != nil && !slices.Equal(count(test), tc.Test) {
				t.Errorf("%v %v: test per class %v, scikit-learn %v", tc.Counts, tc.Kw, count(test), tc.Test)
			}
			// Disjoint, sorted, covering.
			all := append(slices.Clone(train), test...)
			slices.Sort(all)
			if test != nil && (len(all) != len(y) || all[0] != 0 || all[len(all)-1] != len(y)-1 || slices.Compact(all) == nil || len(slices.Compact(all)) != len(y)) {
				t.Errorf("%v: train and test do not partition the rows", tc.Counts)
			}
			if !slices.IsSorted(train) || !slices.IsSorted(test) {
				t.Error("indices not sorted")
			}
		}
	}
}

func TestStratifiedSplitSeeded(t *testing.T) {
	y := GaussianMixture(500, 2, 0.1, rand.NewPCG(1, 1)).Y
	a, _ := StratifiedSplit(y, 0.3, rand.NewPCG(7, 7))
	b, _ := StratifiedSplit(y, 0.3, rand.NewPCG(7, 7))
	c, _ := StratifiedSplit(y, 0.3, rand.NewPCG(8, 8))
	if !slices.Equal(a, b) || slices.Equal(a, c) {
		t.Error("same seed must give the same split, another seed another one")
	}
}

func TestSubset(t *testing.T) {
	ds := &Dataset{X: mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}), Y: []int{0, 1, 0}, Class: []int{4, 5, 6}, Columns: []string{"a", "b"}}
	s := Subset(ds, []int{2, 0})
	if !mat.Equal(s.X, mat.NewDense(2, 2, []float64{5, 6, 1, 2})) || !slices.Equal(s.Y, []int{0, 0}) || !slices.Equal(s.Class, []int{6, 4}) {
		t.Errorf("dense subset: %v %v %v", mat.Formatted(s.X), s.Y, s.Class)
	}
	ds.X = testmat.CSR(ds.X)
	s = Subset(ds, []int{1})
	if _, ok := s.X.(*sparse.CSR); !ok || !mat.Equal(s.X, mat.NewDense(1, 2, []float64{3, 4})) {
		t.Errorf("sparse subset: %T %v", s.X, mat.Formatted(s.X))
	}
}

// TestSplitADBench checks the protocol on 32_shuttle (49,097 rows, 3,511
// anomalies, shared/data/MANIFEST.md): a 10,000-row subsample keeps
// 715 anomalies (10000·3511/49097 = 715.1, scikit-learn gives 715 too, see
// golden_prep.json), the train part has 7,000 rows with 500 or 501
// anomalies (7000·715/10000 = 500.5, a tie broken at random), and every
// train column spans exactly [0, 1] after min-max scaling.
func TestSplitADBench(t *testing.T) {
	path := filepath.Join(sharedData, "adbench", "32_shuttle.npz")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("shared data not found (%v); the embedded copy is tested in dataset/embedded", err)
	}
	ds, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := SplitADBench(ds, 1)
	if err != nil {
		t.Fatal(err)
	}
	if train.Rows() != 7000 || test.Rows() != 3000 || train.Anomalies()+test.Anomalies() != 715 {
		t.Fatalf("train %d rows (%d anomalies), test %d rows (%d)", train.Rows(), train.Anomalies(), test.Rows(), test.Anomalies())
	}
	if a := train.Anomalies(); a != 500 && a != 501 {
		t.Errorf("train anomalies %d, want 500 or 501", a)
	}
	for j := 0; j < train.Cols(); j++ {
		col := mat.Col(nil, j, train.X)
		// Within 2 ulp of [0, 1]: x·scale + (−min·scale) rounds, as in scikit-learn.
		if lo, hi := slices.Min(col), slices.Max(col); math.Abs(lo) > 1e-15 || (math.Abs(hi-1) > 1e-15 && hi != 0) {
			t.Errorf("train column %d spans [%v, %v]", j, lo, hi)
		}
	}
	again, _, _ := SplitADBench(ds, 1)
	if !mat.Equal(again.X, train.X) {
		t.Error("same seed, different split")
	}
	if _, _, err := SplitADBench(&Dataset{X: mat.NewDense(5, 1, nil)}, 1); err == nil {
		t.Error("no labels: want an error")
	}
}

func TestGenerators(t *testing.T) {
	gm := GaussianMixture(1000, 3, 0.05, rand.NewPCG(1, 2))
	if gm.Rows() != 1000 || gm.Cols() != 3 || gm.Anomalies() != 50 {
		t.Errorf("GaussianMixture: %d × %d, %d anomalies; want 1000 × 3, 50 (= 0.05·1000)", gm.Rows(), gm.Cols(), gm.Anomalies())
	}
	again := GaussianMixture(1000, 3, 0.05, rand.NewPCG(1, 2))
	if !mat.Equal(gm.X, again.X) || !slices.Equal(gm.Y, again.Y) {
		t.Error("GaussianMixture not reproducible from its seed")
	}
	b := Banana(400, 0.1, rand.NewPCG(3, 4))
	if b.Rows() != 400 || b.Cols() != 2 || b.Anomalies() != 40 {
		t.Errorf("Banana: %d × %d, %d anomalies", b.Rows(), b.Cols(), b.Anomalies())
	}
	// Normal banana rows satisfy x₂ − 0.25·x₁² + 1 = z₂ ~ N(0, 0.5²): the mean
	// of z₂ over 360 rows is within 4 standard errors (4·0.5/√360 = 0.105) of 0.
	var s float64
	for i, y := range b.Y {
		if y == 0 {
			x1, x2 := b.X.At(i, 0), b.X.At(i, 1)
			s += x2 - 0.25*x1*x1 + 1
		}
	}
	if m := s / 360; math.Abs(m) > 0.105 {
		t.Errorf("banana residual mean %v", m)
	}
}
