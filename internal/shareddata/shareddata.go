package shareddata

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kernelad/anomaly/dataset"
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
