package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// Export's failures; the LIBSVM file itself and svm-predict's agreement
// are tested in package bench (export_test.go), whose test program has
// ocsvm registered.
func TestExportErrors(t *testing.T) {
	dir := t.TempDir()
	_, model := fitModel(t, dir) // a meandist model: no LIBSVM form
	junk := write(t, filepath.Join(dir, "junk.bin"), "not a model")
	out := filepath.Join(dir, "out.libsvm")
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"export", "--model", model, "--out", out}, ExitUsage},
		{[]string{"export", "--model", model, "--format", "pmml", "--out", out}, ExitUsage},
		{[]string{"export", "--model", model}, ExitUsage},
		{[]string{"export", "--model", junk, "--out", out}, ExitData},
		{[]string{"export", "--model", filepath.Join(dir, "missing.bin"), "--out", out}, ExitData},
	} {
		if code, _, stderr := run(context.Background(), tc.args...); code != tc.code {
			t.Errorf("%q: exit %d, want %d (%s)", tc.args, code, tc.code, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed export left an output file")
	}
}
