package main

// The LIBSVM export of the command line, checked end to end (fit, export,
// score, svm-predict). It lives here, with the real methods, rather than in
// package cli so that the cli package's golden method list does not depend
// on ocsvm's parameters.

import (
	"bufio"
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/bench"
	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
	"github.com/kernelad/anomaly/dataset"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/ocsvm"
)

// run drives the anomaly program in-process.
func run(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = cli.Run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeCSV writes X and y as CSV with a label column, values exact.
func writeCSV(t *testing.T, path string, X mat.Matrix, y []int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	r, c := X.Dims()
	for j := 0; j < c; j++ {
		w.WriteString("f" + strconv.Itoa(j) + ",")
	}
	w.WriteString("label\n")
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			w.WriteString(strconv.FormatFloat(X.At(i, j), 'g', -1, 64) + ",")
		}
		w.WriteString(strconv.Itoa(y[i]) + "\n")
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// exportSplit fits ocsvm on the ADBench train split (seed 1) of the
// embedded 6_cardio, exports it and scores the test split. It returns the
// directory, the test scores and the exported model's path.
func exportSplit(t *testing.T, name string) (dir string, scores []float64, model string) {
	t.Helper()
	ds, err := bench.Open(bench.EmbeddedPrefix + name)
	if err != nil {
		t.Fatal(err)
	}
	train, test, err := dataset.SplitADBench(ds, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	writeCSV(t, filepath.Join(dir, "train.csv"), train.X, train.Y)
	writeCSV(t, filepath.Join(dir, "test.csv"), test.X, test.Y)
	f, err := os.Create(filepath.Join(dir, "test.libsvm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.WriteLIBSVM(f, test.X, test.Y); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx := context.Background()
	bin := filepath.Join(dir, "model.bin")
	// scale=none: a LIBSVM model file cannot hold a scale stage (export
	// refuses one; TestGoldenOutputs shows the message).
	if code, _, stderr := run(ctx, "fit", "--method", "ocsvm", "--data", filepath.Join(dir, "train.csv"), "--out", bin, "--set", "scale=none"); code != 0 {
		t.Fatalf("fit: %d %s", code, stderr)
	}
	model = filepath.Join(dir, "model.libsvm")
	if code, _, stderr := run(ctx, "export", "--model", bin, "--format", "libsvm", "--out", model); code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	code, out, stderr := run(ctx, "score", "--model", bin, "--data", filepath.Join(dir, "test.csv"))
	if code != 0 {
		t.Fatalf("score: %d %s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		s, _, _ := strings.Cut(line, ",")
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		scores = append(scores, v)
	}
	if len(scores) != test.Rows() {
		t.Fatalf("%d scores for %d test rows", len(scores), test.Rows())
	}
	return dir, scores, model
}

// libsvmModel is the part of a LIBSVM model file the test reads.
type libsvmModel struct {
	header map[string]string
	coef   []float64
	sv     []map[int]float64
}

func readLIBSVMModel(t *testing.T, path string) libsvmModel {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := libsvmModel{header: map[string]string{}}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	i := 0
	for ; lines[i] != "SV"; i++ {
		k, v, _ := strings.Cut(lines[i], " ")
		m.header[k] = v
	}
	for _, l := range lines[i+1:] {
		f := strings.Fields(l)
		c, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			t.Fatal(err)
		}
		sv := map[int]float64{}
		for _, p := range f[1:] {
			k, v, _ := strings.Cut(p, ":")
			j, _ := strconv.Atoi(k)
			x, _ := strconv.ParseFloat(v, 64)
			sv[j-1] = x
		}
		m.coef, m.sv = append(m.coef, c), append(m.sv, sv)
	}
	return m
}

// The exported file follows LIBSVM's one-class layout and scaling: the
// coefficients sum to νn (ν = ocsvm.DefaultNu, n = 1281 training rows of the split;
// RESULTS.md lists n_train 1281 for 6_cardio), and its decision value
// Σ coef·k − rho, computed here from the file alone, is −νn times the
// score command's score (to round-off).
func TestExportLIBSVMFile(t *testing.T) {
	dir, scores, model := exportSplit(t, "6_cardio")
	m := readLIBSVMModel(t, model)
	for k, want := range map[string]string{"svm_type": "one_class", "kernel_type": "rbf", "nr_class": "2"} {
		if m.header[k] != want {
			t.Errorf("%s = %q, want %q", k, m.header[k], want)
		}
	}
	const nuN = ocsvm.DefaultNu * 1281
	var sum float64
	for _, c := range m.coef {
		sum += c
	}
	if math.Abs(sum-nuN) > 1e-9*nuN {
		t.Errorf("Σ coef = %v, want νn = %v", sum, nuN)
	}
	if n, _ := strconv.Atoi(m.header["total_sv"]); n != len(m.coef) {
		t.Errorf("total_sv %d, %d SV lines", n, len(m.coef))
	}
	gamma, _ := strconv.ParseFloat(m.header["gamma"], 64)
	rho, _ := strconv.ParseFloat(m.header["rho"], 64)
	test, err := dataset.Load(filepath.Join(dir, "test.csv"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, d := test.X.Dims()
	for i, s := range scores {
		var dec float64
		for k, sv := range m.sv {
			var d2 float64
			for j := 0; j < d; j++ {
				diff := test.X.At(i, j) - sv[j]
				d2 += diff * diff
			}
			dec += m.coef[k] * math.Exp(-gamma*d2)
		}
		dec -= rho
		if want := -nuN * s; math.Abs(dec-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Fatalf("row %d: decision value from the file %v, −νn·score %v", i+1, dec, want)
		}
	}
}

// svm-predict (LIBSVM 3.24, Debian libsvm-tools) on the exported model
// labels every test row as the score command's sign does: +1 ⇔ score < 0,
// on the ADBench test splits (seed 1) of 6_cardio (550 rows) and
// 38_thyroid (1132 rows).
func TestExportSVMPredictAgrees(t *testing.T) {
	exe, err := exec.LookPath("svm-predict")
	if err != nil {
		t.Skip("svm-predict not installed (apt-get install libsvm-tools)")
	}
	for _, name := range []string{"6_cardio", "38_thyroid"} {
		t.Run(name, func(t *testing.T) { svmPredictAgrees(t, exe, name) })
	}
}

func svmPredictAgrees(t *testing.T, exe, name string) {
	dir, scores, model := exportSplit(t, name)
	pred := filepath.Join(dir, "pred.txt")
	if out, err := exec.Command(exe, filepath.Join(dir, "test.libsvm"), model, pred).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	b, err := os.ReadFile(pred)
	if err != nil {
		t.Fatal(err)
	}
	labels := strings.Fields(string(b))
	if len(labels) != len(scores) {
		t.Fatalf("svm-predict gave %d labels for %d rows", len(labels), len(scores))
	}
	agree, outliers := 0, 0
	for i, l := range labels {
		want := "1"
		if scores[i] >= 0 {
			want = "-1"
			outliers++
		}
		if l == want {
			agree++
		} else {
			t.Errorf("row %d: svm-predict %s, score %v", i+1, l, scores[i])
		}
	}
	t.Logf("svm-predict agrees with the score sign on %d of %d test rows (%d outliers, score ≥ 0)", agree, len(labels), outliers)
}
