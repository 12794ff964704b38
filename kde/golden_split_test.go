package kde

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kernelad/anomaly/internal/shareddata"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// TestWriteGoldenSplit writes the train/test rows that the scikit-learn
// golden script (testdata/golden.py, and kpca's) and the Go golden tests both
// read, so the two sides see the same numbers: seed 1 of the ADBench
// protocol (dataset.SplitADBench) on cardio and thyroid, keeping the first
// 300 test rows. It runs only when asked:
//
//	ANOMALY_WRITE_GOLDEN=1 go test -run TestWriteGoldenSplit ./kde
func TestWriteGoldenSplit(t *testing.T) {
	testmat.SkipUnless(t, "ANOMALY_WRITE_GOLDEN", "to regenerate the golden split (writes kde/testdata)")
	for _, name := range []string{"6_cardio", "38_thyroid"} {
		tr, te, err := shareddata.LoadADBenchSplit(name, 1)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := te.X.Dims()
		test := mat.DenseCopyOf(te.X).Slice(0, min(300, n), 0, te.Cols()).(*mat.Dense)
		for file, m := range map[string]*mat.Dense{name + "_train.npy": mat.DenseCopyOf(tr.X), name + "_test.npy": mat.DenseCopyOf(test)} {
			f, err := os.Create(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			if err := npy.Write(f, m); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			r, c := m.Dims()
			t.Logf("testdata/%s: %d × %d", file, r, c)
		}
	}
}
