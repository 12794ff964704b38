package dataset_test

import (
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/dataset/embedded"
)

// TestSharedExampleFiles reads the module's example files (testdata/ at the
// top of the repository) in each format and requires the same matrix and
// labels from all of them: the breastw rows of the embedded ADBench file,
// and the tensor file's shape and first values against the embedded
// BasicMotions recordings it was cut from (testdata/README.md).
func TestSharedExampleFiles(t *testing.T) {
	dir := filepath.Join("..", "testdata")
	want, err := embedded.Load("4_breastw")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"breastw.csv", "breastw.arff", "breastw.libsvm", "breastw.npz"} {
		ds, err := dataset.Load(filepath.Join(dir, name), dataset.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !mat.Equal(ds.X, want.X) {
			t.Errorf("%s: X differs from the embedded 4_breastw", name)
		}
		if !slices.Equal(ds.Y, want.Y) {
			t.Errorf("%s: labels differ from the embedded 4_breastw", name)
		}
	}
	ds, err := dataset.Load(filepath.Join(dir, "basicmotions_running.npy"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n, d := ds.X.Dims(); n != 24 || d != 600 || !slices.Equal(ds.Shape, []int{6, 100}) {
		t.Fatalf("tensor file: %d × %d, shape %v; want 24 × 600, shape [6 100]", n, d, ds.Shape)
	}
	bm, err := embedded.Load("basicmotions")
	if err != nil {
		t.Fatal(err)
	}
	first := slices.Index(bm.Class, 0)                                          // the first Standing recording is row 0
	if got, w := ds.X.At(0, 7), float64(float32(bm.X.At(first, 7))); got != w { // stored as float32
		t.Errorf("tensor file row 0, value 7: %v, want %v", got, w)
	}
}
