package iforest

import (
	"context"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/nprand"
	"github.com/kernelad/anomaly/internal/testmat"
)

// goldenRows builds the rows of testdata/sklearn_golden.py: integer
// formulas with one correctly rounded division, so Python and Go hold the
// same float64 values.
func goldenRows(n int) *mat.Dense {
	X := mat.NewDense(n, 5, nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, float64((i*7919+13)%1009)/37)
		X.Set(i, 1, 2.5)
		X.Set(i, 2, float64((i*104729)%7)/3)
		X.Set(i, 3, float64((i*i*31+i*17)%10007)/101-40)
		X.Set(i, 4, float64(i%2))
	}
	return X
}

// TestMatchesScikitLearn fits the forest of each case of
// testdata/sklearn_golden.json (scikit-learn 1.2.1's IsolationForest with
// random_state = seed, NumPy 1.24.2) and compares the first tree node by
// node and the scores (−score_samples) of every stride-th training row.
// The cases take each of scikit-learn's subsample paths (all rows,
// reservoir, permutation, tracking selection), and their rows have a
// constant feature and few-level ones, so the splitter's constant-feature
// bookkeeping is exercised. The scores are the same sums in the same
// order, so they agree to the last bits.
func TestMatchesScikitLearn(t *testing.T) {
	var golden struct {
		Cases []struct {
			N, Seed, Stride int
			Scores          []float64
			Tree0           struct {
				Feature   []int
				Threshold []float64
				Size      []int
			}
		}
	}
	testmat.ReadJSON(t, filepath.Join("testdata", "sklearn_golden.json"), &golden)
	for _, c := range golden.Cases {
		X := goldenRows(c.N)
		f, err := New(Config{Src: nprand.NewSource(uint64(c.Seed)), Precision: Single})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		m, _ := f.Model()
		tree := m.trees[0]
		if len(tree) != len(c.Tree0.Size) {
			t.Errorf("n=%d seed %d: first tree has %d nodes, scikit-learn's %d", c.N, c.Seed, len(tree), len(c.Tree0.Size))
		} else {
			for i, nd := range tree {
				feat, thr := int(nd.Feature), nd.Value
				if nd.Left < 0 {
					feat, thr = -2, -2 // scikit-learn's TREE_UNDEFINED
				}
				if feat != c.Tree0.Feature[i] || thr != c.Tree0.Threshold[i] || int(nd.Size) != c.Tree0.Size[i] {
					t.Errorf("n=%d seed %d: node %d is (feature %d, threshold %v, %d rows), scikit-learn's (%d, %v, %d)",
						c.N, c.Seed, i, feat, thr, nd.Size, c.Tree0.Feature[i], c.Tree0.Threshold[i], c.Tree0.Size[i])
					break
				}
			}
		}
		var rows []int
		for i := 0; i < c.N; i += c.Stride {
			rows = append(rows, i)
		}
		got, err := f.Score(nil, subsetRows(X, rows))
		if err != nil {
			t.Fatal(err)
		}
		worst := testmat.MaxAbsDiff(got, c.Scores)
		t.Logf("n=%d seed %d: %d nodes in the first tree, largest |Δscore| %.3g over %d rows", c.N, c.Seed, len(tree), worst, len(rows))
		if worst > 1e-14 {
			t.Errorf("n=%d seed %d: scores differ from scikit-learn's by up to %.3g", c.N, c.Seed, worst)
		}
	}
}

func subsetRows(X *mat.Dense, rows []int) *mat.Dense {
	_, d := X.Dims()
	S := mat.NewDense(len(rows), d, nil)
	for i, r := range rows {
		S.SetRow(i, X.RawRowView(r))
	}
	return S
}
