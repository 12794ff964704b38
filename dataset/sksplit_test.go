package dataset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The golden file holds scikit-learn 1.2.1's train/test row indices for the
// ADBench protocol (testdata/make_sksplit_golden.py); the Go split must
// reproduce them exactly, order included.
func TestSklearnSplitGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "sksplit_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			File        string
			Seed        uint64
			Train, Test []int
		}
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Cases {
		path := filepath.Join("..", "..", "shared", "data", "adbench", c.File)
		if _, err := os.Stat(path); err != nil {
			t.Skipf("shared data not found at %s: %v", path, err)
		}
		ds, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Replace X by the row index so the split reveals which rows it took.
		n := len(ds.Y)
		idx := mat.NewDense(n, 1, nil)
		for i := 0; i < n; i++ {
			idx.Set(i, 0, float64(i))
		}
		ds.X = idx
		// Undo the min-max scaling SplitADBench applies: the train part's
		// min and max of the index column.
		train, test, err := SplitADBench(ds, c.Seed)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := float64(c.Train[0]), float64(c.Train[0])
		for _, v := range c.Train {
			lo, hi = min(lo, float64(v)), max(hi, float64(v))
		}
		check := func(part string, got mat.Matrix, want []int) {
			r, _ := got.Dims()
			if r != len(want) {
				t.Fatalf("%s seed %d %s: %d rows, want %d", c.File, c.Seed, part, r, len(want))
			}
			for i, w := range want {
				if v := got.At(i, 0)*(hi-lo) + lo; v < float64(w)-0.25 || v > float64(w)+0.25 {
					t.Fatalf("%s seed %d %s row %d: original index %.2f, scikit-learn has %d", c.File, c.Seed, part, i, v, w)
				}
			}
		}
		check("train", train.X, c.Train)
		check("test", test.X, c.Test)
	}
}
