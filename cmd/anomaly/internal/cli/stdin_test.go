package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStdin reads --data - from standard input: fit on CSV, score the
// same rows gzipped (--data-format csv.gz) and compare with scoring the
// file; then the usage errors of --data-format.
func TestStdin(t *testing.T) {
	dir := t.TempDir()
	model, data := filepath.Join(dir, "m.bin"), filepath.Join(dir, "test.csv")
	os.WriteFile(data, []byte(testCSV), 0o644)
	runIn := func(stdin []byte, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := RunIO(context.Background(), args, bytes.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, stderr := runIn([]byte(trainCSV), "fit", "--method", "meandist", "--data", "-", "--out", model); code != ExitOK || !strings.Contains(stderr, "of standard input") {
		t.Fatalf("fit from standard input: exit %d: %s", code, stderr)
	}
	_, want, _ := run(context.Background(), "score", "--model", model, "--data", data)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(testCSV))
	w.Close()
	if code, got, stderr := runIn(gz.Bytes(), "score", "--model", model, "--data", "-", "--data-format", "csv.gz"); code != ExitOK || got != want {
		t.Errorf("score of gzipped standard input: exit %d (%s), output\n%s\nwant\n%s", code, stderr, got, want)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"score", "--model", model, "--data", "-", "--data-format", "npz"}, ExitUsage, `--data-format "npz": a stream is read as csv, tsv, arff, libsvm or npy`},
		{[]string{"score", "--model", model, "--data", data, "--data-format", "tsv"}, ExitUsage, "--data-format applies to standard input (--data -) and named pipes"},
		{[]string{"eval", "--model", model, "--data", "-", "--data-format", "tsv"}, ExitData, "standard input: row 1: the header is one column"},
	} {
		if code, _, stderr := runIn([]byte(testCSV), tc.args...); code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestStdinIsOutput refuses an output that is the file standard input
// was redirected from (--data - --out data.csv < data.csv), for fit and
// score, before any work: the data file keeps its bytes.
func TestStdinIsOutput(t *testing.T) {
	dir := t.TempDir()
	model, data := filepath.Join(dir, "m.bin"), filepath.Join(dir, "train.csv")
	os.WriteFile(data, []byte(trainCSV), 0o644)
	if code, _, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", data, "--out", model); code != ExitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	for _, args := range [][]string{
		{"fit", "--method", "meandist", "--data", "-", "--out", data},
		{"score", "--model", model, "--data", "-", "--out", data},
	} {
		f, err := os.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		code := RunIO(context.Background(), args, f, &out, &errb)
		f.Close()
		if want := "train.csv is the file standard input is read from; write the output to another file"; code != ExitUsage || !strings.Contains(errb.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", args, code, errb.String(), ExitUsage, want)
		}
		if b, _ := os.ReadFile(data); string(b) != trainCSV {
			t.Errorf("%q: the data file was changed", args)
		}
	}
}
