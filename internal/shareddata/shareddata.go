package shareddata

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/eval"
)

// Dir returns the shared data folder: <repository>/../shared/data.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "data")
}

// Path returns the path of rel inside the shared data folder, skipping tb
// when it does not exist.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(Dir(), rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared data %s not found (expected ../shared/data beside the repository): %v", rel, err)
	}
	return p
}

// ADBenchSplit loads adbench/<name>.npz and returns its ADBench train/test
// split for seed (dataset.SplitADBench), skipping tb when the file is absent.
func ADBenchSplit(tb testing.TB, name string, seed uint64) (train, test *dataset.Dataset) {
	tb.Helper()
	ds, err := dataset.Load(Path(tb, filepath.Join("adbench", name+".npz")), dataset.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	train, test, err = dataset.SplitADBench(ds, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return train, test
}

// ADBenchAUCs runs the ADBench protocol on adbench/<name>.npz for seeds
// 1–3 (dataset.SplitADBench): a detector from newDet(seed) is fitted on
// each train part and scores the test part. It returns the three test
// AUC-ROCs in ascending order (the median is aucs[1]) and the total fit
// time; a NaN score fails tb. tb is skipped when the file is absent.
func ADBenchAUCs(tb testing.TB, name string, newDet func(seed uint64) detector.Detector) (aucs []float64, fit time.Duration) {
	tb.Helper()
	ds, err := dataset.Load(Path(tb, filepath.Join("adbench", name+".npz")), dataset.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	for seed := uint64(1); seed <= 3; seed++ {
		train, test, err := dataset.SplitADBench(ds, seed)
		if err != nil {
			tb.Fatal(err)
		}
		d := newDet(seed)
		t0 := time.Now()
		if err := d.Fit(context.Background(), train.X); err != nil {
			tb.Fatalf("%s seed %d: %v", name, seed, err)
		}
		fit += time.Since(t0)
		s, err := d.Score(nil, test.X)
		if err != nil {
			tb.Fatalf("%s seed %d: %v", name, seed, err)
		}
		for _, v := range s {
			if math.IsNaN(v) {
				tb.Fatalf("%s seed %d: NaN score", name, seed)
			}
		}
		aucs = append(aucs, eval.AUCROC(s, test.Y))
	}
	sort.Float64s(aucs)
	return aucs, fit
}
