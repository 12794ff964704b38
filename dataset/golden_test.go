package dataset

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// sharedData is the shared data folder, reached from this package directory.
var sharedData = filepath.Join("..", "..", "shared", "data")

func needShared(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(sharedData, "adbench")); err != nil {
		t.Skipf("shared data not found at %s (%v): skipping the real-file checks", sharedData, err)
	}
}

// fsum returns a compensated (Neumaier) sum, close to math.fsum's exact one.
func fsum(f func(yield func(float64))) float64 {
	var s, c float64
	f(func(v float64) {
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
	})
	return s + c
}

// TestGoldenNPZ loads every shared .npz and compares it with what numpy
// reads: testdata/golden_npz.json, made by testdata/golden_npz.py.
func TestGoldenNPZ(t *testing.T) {
	needShared(t)
	var golden map[string]struct {
		Shape    []int
		Rows     int
		Cols     int
		Sum      float64
		SumIndex float64 `json:"sum_index"`
		YSum     *int    `json:"y_sum"`
	}
	testmat.ReadJSON(t, filepath.Join("testdata", "golden_npz.json"), &golden)
	for name, g := range golden {
		t.Run(name, func(t *testing.T) {
			ds, err := Load(filepath.Join(sharedData, name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, c := ds.X.Dims()
			if r != g.Rows || c != g.Cols {
				t.Fatalf("dims %d × %d, numpy %d × %d", r, c, g.Rows, g.Cols)
			}
			if len(g.Shape) > 2 {
				if len(ds.Shape) != len(g.Shape)-1 {
					t.Fatalf("Shape %v, numpy %v", ds.Shape, g.Shape[1:])
				}
				for k := range ds.Shape {
					if ds.Shape[k] != g.Shape[k+1] {
						t.Fatalf("Shape %v, numpy %v", ds.Shape, g.Shape[1:])
					}
				}
			} else if ds.Shape != nil {
				t.Fatalf("Shape %v for a 2-D array", ds.Shape)
			}
			raw := ds.X.(*mat.Dense).RawMatrix().Data
			sum := fsum(func(y func(float64)) {
				for _, v := range raw {
					y(v)
				}
			})
			sumIdx := fsum(func(y func(float64)) {
				for k, v := range raw {
					y(v * float64(k))
				}
			})
			// Tolerance 1e-9 relative (the brief); both sides are compensated sums.
			if !close(sum, g.Sum, 1e-9) || !close(sumIdx, g.SumIndex, 1e-9) {
				t.Errorf("sum %v, sum·index %v; numpy %v, %v", sum, sumIdx, g.Sum, g.SumIndex)
			}
			if g.YSum != nil {
				lab := ds.Y
				if lab == nil {
					lab = ds.Class
				}
				if len(lab) != r {
					t.Fatalf("%d labels for %d rows", len(lab), r)
				}
				s := 0
				for _, v := range lab {
					s += v
				}
				if s != *g.YSum {
					t.Errorf("sum of y %d, numpy %d", s, *g.YSum)
				}
			}
		})
	}
}

func close(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// TestNPYIOAgrees cross-checks our decoder with github.com/sbinet/npyio on
// the float64 Fortran-order files that npyio's *mat.Dense path can read.
func TestNPYIOAgrees(t *testing.T) {
	needShared(t)
	for _, name := range []string{"6_cardio.npz", "38_thyroid.npz", "40_vowels.npz"} {
		path := filepath.Join(sharedData, "adbench", name)
		ds, err := Load(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := npz.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		var m mat.Dense
		err = f.Read("X.npy", &m)
		f.Close()
		if err != nil {
			t.Fatalf("%s: npyio: %v", name, err)
		}
		if !mat.Equal(&m, ds.X) {
			t.Errorf("%s: npyio and Load disagree", name)
		}
	}
}
