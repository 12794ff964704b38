package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/testmat"
)

// npy encodes data (a slice of fixed-size numbers) as a little-endian
// C-order array in NumPy's .npy format 1.0.
func npy(descr string, shape []int, data any) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, data)
	return testmat.NPY(descr, false, shape, b.Bytes())
}

// writeTensorNPZShape writes n samples of the given sample shape (product
// 6) with classes 0, 1, 2 in turn.
func writeTensorNPZShape(t *testing.T, path string, n int, shape []int) {
	t.Helper()
	x := make([]float64, n*6)
	y := make([]int64, n)
	for i := range n {
		y[i] = int64(i % 3)
		for j := range 6 {
			x[i*6+j] = float64(y[i]*10) + float64(j)*0.1 + float64(i)*0.01
		}
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, content := range map[string][]byte{
		"X.npy": npy("<f8", append([]int{n}, shape...), x),
		"y.npy": npy("<i8", []int{n}, y),
	} {
		w, _ := zw.Create(name)
		w.Write(content)
	}
	zw.Close()
	write(t, path, b.String())
}

// writeTensorNPZ writes n samples of shape 2×3 with classes 0, 1, 2 in turn
// (the layout of the tensor files: X is N-d, y holds class indices).
func writeTensorNPZ(t *testing.T, path string, n int) {
	t.Helper()
	writeTensorNPZShape(t, path, n, []int{2, 3})
}

// TestTensorFile checks that fit takes the sample shape from an N-d array
// and that --normal-class turns class indices into a normal class (fit) and
// anomaly labels (eval).
func TestTensorFile(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "t.npz")
	writeTensorNPZ(t, data, 30)
	model := filepath.Join(dir, "m.bin")
	code, _, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", data, "--out", model, "--normal-class", "0")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	// 10 of the 30 rows are class 0.
	if !strings.Contains(stderr, "fitted 10 rows × 6 features") {
		t.Errorf("fit summary %q", stderr)
	}
	d, err := detector.Load(testmat.ReadFile(t, model))
	var params map[string]string
	if err == nil {
		desc, _ := detector.Describe(d)
		params = desc.Params
	}
	if err != nil || params["shape"] != "2x3" {
		t.Errorf("model params %v (%v): want shape=2x3 from the file", params, err)
	}
	// Classes 1 and 2 sit 10 and 20 away in every feature: a perfect ranking.
	code, stdout, stderr := run(context.Background(), "eval", "--model", model, "--data", data, "--normal-class", "0", "--json")
	if code != 0 || !strings.HasPrefix(stdout, `{"auc_roc":1,"auc_pr":1,`) || !strings.Contains(stdout, `"n":30,"anomalies":20`) {
		t.Errorf("eval: exit %d, %q, %q", code, stdout, stderr)
	}
	code, _, stderr = run(context.Background(), "eval", "--model", model, "--data", data)
	if code != ExitUsage || !strings.Contains(stderr, "--normal-class N") {
		t.Errorf("eval without --normal-class: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(context.Background(), "fit", "--method", "meandist", "--data", data, "--out", model, "--normal-class", "5")
	if code != ExitData || !strings.Contains(stderr, "no row of class 5") {
		t.Errorf("fit --normal-class 5: exit %d, %q", code, stderr)
	}
}

// A tensor file whose samples have another shape than the model's is bad
// data even when the rows have the same length (3×2 against 2×3).
func TestTensorShapeMismatch(t *testing.T) {
	dir := t.TempDir()
	train, other := filepath.Join(dir, "t.npz"), filepath.Join(dir, "u.npz")
	writeTensorNPZ(t, train, 30)
	writeTensorNPZShape(t, other, 30, []int{3, 2})
	model := filepath.Join(dir, "m.bin")
	if code, _, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", train, "--out", model, "--normal-class", "0"); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"score", "--model", model, "--data", other},
		{"eval", "--model", model, "--data", other, "--normal-class", "0"},
	} {
		code, _, stderr := run(context.Background(), args...)
		if code != ExitData || !strings.Contains(stderr, "samples have shape 3x2, the model was fitted on shape 2x3") {
			t.Errorf("%s: exit %d, %q", args[0], code, stderr)
		}
	}
}
