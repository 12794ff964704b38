package ocsvm

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/scale"
)

// TestWriteLIBSVM loads the exported model with LIBSVM's own Python binding
// (Debian's python3-libsvm) and compares its decision values with −νn·Score.
func TestWriteLIBSVM(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import svmutil").Run(); err != nil {
		t.Skip("python3-libsvm (svmutil) not installed: apt-get install python3-libsvm")
	}
	X := randX(300, 4, 17)
	Y := randX(50, 4, 18)
	for _, cfg := range []Config{{Nu: 0.3, Common: method.Common{Scale: scale.None}}, {Nu: 0.5, Kernel: kernel.Spec{Kind: "poly", Gamma: 0.3, Coef0: 1, Degree: 2}, Common: method.Common{Scale: scale.None}}, {Nu: 0.2, Kernel: kernel.Spec{Kind: "linear"}, Common: method.Common{Scale: scale.None}}} {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, "model"))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.WriteLIBSVM(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := os.WriteFile(filepath.Join(dir, "test"), svmlight(Y, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		script := `import sys, svmutil
m = svmutil.svm_load_model(sys.argv[1])
y, x = svmutil.svm_read_problem(sys.argv[2])
_, _, d = svmutil.svm_predict(y, x, m, "-q")
print("\n".join(repr(v[0]) for v in d))`
		out, err := exec.Command(py, "-c", script, filepath.Join(dir, "model"), filepath.Join(dir, "test")).CombinedOutput()
		if err != nil {
			t.Fatalf("svmutil: %v\n%s", err, out)
		}
		s, _ := m.Score(nil, Y)
		scale := cfg.Nu * 300
		lines := strings.Fields(string(out))
		if len(lines) != len(s) {
			t.Fatalf("%d decision values for %d rows", len(lines), len(s))
		}
		for i, l := range lines {
			dv, err := strconv.ParseFloat(l, 64)
			if err != nil {
				t.Fatal(err)
			}
			want := -scale * s[i]
			if math.Abs(dv-want) > 1e-8*math.Max(1, math.Abs(want)) {
				t.Errorf("%s row %d: LIBSVM decision value %v, −νn·Score = %v", cfg.Kernel.Kind, i, dv, want)
			}
		}
	}
}
