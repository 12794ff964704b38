package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
	"github.com/kernelad/anomaly/detector"
)

// runMain runs the command line with the real methods registered.
func runMain(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = cli.Run(context.Background(), args, &o, &e)
	return code, o.String(), e.String()
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// intCSV is a CSV of columns a and b and n rows, row i holding row(i):
// integers, so that a file of any length is quick to write.
func intCSV(n int, row func(i int) (a, b int)) string {
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := range n {
		x, y := row(i)
		fmt.Fprintf(&b, "%d,%d\n", x, y)
	}
	return b.String()
}

// fit --sample N fits on a uniform sample of N rows, drawn with --seed:
// the model records sample and sample_seed, the summary says it, the
// same seed draws the same sample (the same model bytes) and another
// seed another one.
func TestFitSample(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "train.csv"), intCSV(300, func(i int) (int, int) { return i % 17, (i * 7) % 23 }))
	fit := func(name, seed string) []byte {
		t.Helper()
		model := filepath.Join(dir, name)
		code, _, stderr := runMain("fit", "--method", "gauss", "--data", train, "--out", model, "--sample", "40", "--seed", seed)
		if code != 0 || !strings.Contains(stderr, "gauss: fitted a sample of 40 of the 300 rows × 2 features") {
			t.Fatalf("fit --sample 40: exit %d, stderr %q", code, stderr)
		}
		raw, err := os.ReadFile(model)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	a, again, other := fit("a.bin", "5"), fit("b.bin", "5"), fit("c.bin", "6")
	if !bytes.Equal(a, again) {
		t.Error("two fits with --sample 40 --seed 5 wrote different models")
	}
	if bytes.Equal(a, other) {
		t.Error("--seed 5 and --seed 6 drew the same sample")
	}
	d, err := detector.Load(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if desc, _ := detector.Describe(d); desc.Params["sample"] != "40" || desc.Params["sample_seed"] != "5" {
		t.Errorf("the model's parameters %v, want sample=40 sample_seed=5", desc.Params)
	}
	if code, _, stderr := runMain("fit", "--method", "gauss", "--data", train, "--out", filepath.Join(dir, "d.bin"), "--sample", "-3"); code != cli.ExitUsage || !strings.Contains(stderr, "--sample -3") {
		t.Errorf("--sample -3: exit %d, stderr %q", code, stderr)
	}
}
