package shareddata

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/eval"
	"gonum.org/v1/gonum/mat"
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

// Has reports whether rel exists inside the shared data folder, for tests
// that run a smaller case instead of skipping when it is absent.
func Has(rel string) bool {
	_, err := os.Stat(filepath.Join(Dir(), rel))
	return err == nil
}

// ADBench loads adbench/<name>.npz (name without the extension, e.g.
// "6_cardio"), skipping tb when the file is absent and failing it when the
// file cannot be read.
func ADBench(tb testing.TB, name string) *dataset.Dataset {
	tb.Helper()
	ds, err := dataset.Load(Path(tb, filepath.Join("adbench", name+".npz")), dataset.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return ds
}

// LoadADBenchSplit loads adbench/<name>.npz and returns its ADBench
// train/test split for seed (dataset.SplitADBench). Unlike ADBenchSplit it
// does not skip: an absent file is an error.
func LoadADBenchSplit(name string, seed uint64) (train, test *dataset.Dataset, err error) {
	ds, err := dataset.Load(filepath.Join(Dir(), "adbench", name+".npz"), dataset.Options{})
	if err != nil {
		return nil, nil, err
	}
	return dataset.SplitADBench(ds, seed)
}

// ADBenchSplit loads adbench/<name>.npz and returns its ADBench train/test
// split for seed (dataset.SplitADBench), skipping tb when the file is absent.
func ADBenchSplit(tb testing.TB, name string, seed uint64) (train, test *dataset.Dataset) {
	tb.Helper()
	Path(tb, filepath.Join("adbench", name+".npz"))
	train, test, err := LoadADBenchSplit(name, seed)
	if err != nil {
		tb.Fatal(err)
	}
	return train, test
}

// SplitOrUniform returns the seed-1 ADBench split of adbench/<name>.npz as
// dense matrices and name, or, when the shared data is absent or unreadable,
// uniform random rows on [0, 1) of the given shape (ntrain then ntest rows
// of d columns, drawn in that order from PCG(1, 1)) and "uniform". It is
// for benchmarks, which should run on a clone without ../shared as well.
func SplitOrUniform(name string, ntrain, ntest, d int) (train, test *mat.Dense, source string) {
	if tr, te, err := LoadADBenchSplit(name, 1); err == nil {
		return mat.DenseCopyOf(tr.X), mat.DenseCopyOf(te.X), name
	}
	rng := rand.New(rand.NewPCG(1, 1))
	train, test = mat.NewDense(ntrain, d, nil), mat.NewDense(ntest, d, nil)
	for _, m := range []*mat.Dense{train, test} {
		r, c := m.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				m.Set(i, j, rng.Float64())
			}
		}
	}
	return train, test, "uniform"
}

// Detector is what the protocol needs of a detector (a detector.Detector
// has it; this package imports no detector package, so that it stays on
// the floor of internal/ under the methods whose tests use it).
type Detector interface {
	Fit(ctx context.Context, X mat.Matrix) error
	Score(dst []float64, X mat.Matrix) ([]float64, error)
}

// ADBenchAUCs runs the ADBench protocol on adbench/<name>.npz for seeds
// 1–3 (dataset.SplitADBench): a detector from newDet(seed) is fitted on
// each train part and scores the test part. It returns the three test
// AUC-ROCs in ascending order (the median is aucs[1]) and the total fit
// time; a NaN score fails tb. tb is skipped when the file is absent.
func ADBenchAUCs[D Detector](tb testing.TB, name string, newDet func(seed uint64) D) (aucs []float64, fit time.Duration) {
	tb.Helper()
	ds := ADBench(tb, name)
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

// ADBenchAnchors runs ADBenchAUCs on every data set named in anchors, in
// sorted order, and compares the median test AUC-ROC over seeds 1–3 with
// the anchor (a median from ../shared/anchors/RESULTS.md): a difference
// above tol fails tb, except for the data sets in exempt, which are
// reported only. It logs one line a data set and returns the medians by
// name. tb is skipped when the ADBench folder is absent.
func ADBenchAnchors[D Detector](tb testing.TB, anchors map[string]float64, tol float64, exempt []string, newDet func(seed uint64) D) map[string]float64 {
	tb.Helper()
	Path(tb, "adbench")
	names := make([]string, 0, len(anchors))
	for n := range anchors {
		names = append(names, n)
	}
	sort.Strings(names)
	medians := make(map[string]float64, len(names))
	for _, name := range names {
		aucs, fit := ADBenchAUCs(tb, name, newDet)
		med, want := aucs[1], anchors[name]
		medians[name] = med
		tb.Logf("%-15s median AUC %.4f (seeds %.4f %.4f %.4f), scikit-learn %.3f, Δ %+.4f, mean fit %.2fs", name, med, aucs[0], aucs[1], aucs[2], want, med-want, fit.Seconds()/3)
		if !slices.Contains(exempt, name) && math.Abs(med-want) > tol {
			tb.Errorf("%s: median AUC %.4f differs from scikit-learn's %.3f by more than %g", name, med, want, tol)
		}
	}
	return medians
}
