package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kernelad/anomaly/detector"
)

// TestColumnsNotChecked: a model without column names (fitted on a LIBSVM
// file, which has none) scores a named CSV whatever its names, silently,
// as scikit-learn only warns then; and a model with names scores a file
// without them (LIBSVM).
func TestColumnsNotChecked(t *testing.T) {
	dir := t.TempDir()
	lib := write(t, filepath.Join(dir, "train.libsvm"), "0 1:0 2:0\n0 1:1\n0 2:1\n0 1:1 2:1\n1 1:5 2:5\n")
	model := filepath.Join(dir, "m.bin")
	if code, _, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", lib, "--out", model); code != ExitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	named := write(t, filepath.Join(dir, "named.csv"), "b,a\n1,0\n")
	if code, stdout, stderr := run(context.Background(), "score", "--model", model, "--data", named); code != ExitOK || stderr != "" {
		t.Errorf("model without names: exit %d, stderr %q, stdout %q", code, stderr, stdout)
	}
	_, named2 := fitModel(t, dir) // train.csv: a, b
	if code, _, stderr := run(context.Background(), "score", "--model", named2, "--data", lib); code != ExitOK || stderr != "" {
		t.Errorf("data without names: exit %d, stderr %q", code, stderr)
	}
}

// TestColumnsRecorded: fit keeps the feature columns' names of a CSV (not
// its label, row index or row identifier) and of an ARFF file; a file
// with the same names in the same order scores, whatever else it holds.
func TestColumnsRecorded(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file, content string
	}{
		{"idx.csv", ",id,a,b,label\n0,r1,0,0,0\n1,r2,1,0,0\n2,r3,0,1,0\n3,r4,1,1,0\n4,r5,5,5,1\n"},
		{"t.arff", "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute class {0,1}\n@data\n0,0,0\n1,0,0\n0,1,0\n1,1,0\n5,5,1\n"},
		{"t.tsv", "a\tb\n0\t0\n1\t0\n0\t1\n1\t1\n5\t5\n"},
	} {
		data := write(t, filepath.Join(dir, tc.file), tc.content)
		model := filepath.Join(dir, tc.file+".bin")
		if code, _, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", data, "--out", model); code != ExitOK {
			t.Fatalf("%s: fit: exit %d: %s", tc.file, code, stderr)
		}
		f, err := os.Open(model)
		if err != nil {
			t.Fatal(err)
		}
		d, err := detector.Load(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if desc, _ := detector.Describe(d); len(desc.Columns) != 2 || desc.Columns[0] != "a" || desc.Columns[1] != "b" {
			t.Errorf("%s: the model's names are %q, want [a b]", tc.file, desc.Columns)
		}
		same := write(t, filepath.Join(dir, "same.csv"), "label,a,b\n0,1,1\n1,4,4\n")
		if code, _, stderr := run(context.Background(), "eval", "--model", model, "--data", same); code != ExitOK {
			t.Errorf("%s: the same names refused: exit %d: %s", tc.file, code, stderr)
		}
		swapped := write(t, filepath.Join(dir, "swapped.csv"), "b,a\n1,0\n")
		if code, _, stderr := run(context.Background(), "score", "--model", model, "--data", swapped); code != ExitData {
			t.Errorf("%s: swapped columns: exit %d, stderr %q", tc.file, code, stderr)
		}
	}
}
