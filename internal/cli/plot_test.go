package cli

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// checkPNG fails unless path holds a decodable PNG.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	if _, err := png.Decode(testmat.ReadFile(t, path)); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}

func TestPlotCommands(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := benchCSV(t)
	for _, tc := range []struct {
		args []string
		out  string
	}{
		{[]string{"plot", "roc", "--data", data, "--methods", "benchvec"}, "roc.png"},
		{[]string{"plot", "pr", "--data", data, "--methods", "benchvec"}, "pr.png"},
		{[]string{"plot", "map", "--method", "meandist", "--n", "100", "--steps", "20"}, "map.png"},
		{[]string{"plot", "cpals", "--shape", "8x7x6", "--rank", "2", "--iterations", "5"}, "cpals.png"},
	} {
		out := filepath.Join(dir, tc.out)
		if code, _, stderr := run(ctx, append(tc.args, "--out", out)...); code != 0 {
			t.Fatalf("%q: exit %d: %s", tc.args, code, stderr)
		}
		checkPNG(t, out)
	}
	// bench --plot: ROC and PR per data set.
	pdir := filepath.Join(dir, "bench")
	if code, _, stderr := run(ctx, "bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--in-process", "--plot", pdir); code != 0 {
		t.Fatalf("bench --plot: exit %d: %s", code, stderr)
	}
	checkPNG(t, filepath.Join(pdir, "grid_roc.png"))
	checkPNG(t, filepath.Join(pdir, "grid_pr.png"))
	// A picture that is a link to the data file is refused, and the data
	// left as it was (bench wrote through it: the CSV became a PNG).
	ldir := filepath.Join(dir, "linked")
	os.MkdirAll(ldir, 0o755)
	os.Symlink(data, filepath.Join(ldir, "grid_roc.png"))
	before, _ := os.ReadFile(data)
	if code, _, stderr := run(ctx, "bench", "--methods", "benchvec", "--data", data, "--seeds", "1", "--in-process", "--plot", ldir); code != ExitUsage || !strings.Contains(stderr, "same file as the input") {
		t.Errorf("bench --plot onto the data: exit %d: %s", code, stderr)
	}
	if after, _ := os.ReadFile(data); !bytes.Equal(after, before) {
		t.Error("bench --plot replaced the data file")
	}
	// sgd needs expose, which this test program lacks.
	for _, args := range [][]string{
		{"plot"},
		{"plot", "nosuch"},
		{"plot", "cpals"},
		{"plot", "cpals", "--shape", "4x0", "--out", filepath.Join(dir, "x.png")},
		{"plot", "cpals", "--rank", "9", "--shape", "4x4x4", "--out", filepath.Join(dir, "x.png")},
		{"plot", "sgd", "--out", filepath.Join(dir, "sgd.png")},
		{"plot", "roc"},
		{"plot", "roc", "--data", data, "--methods", "benchvec", "--out", filepath.Join(dir, "x.pgn")},
		{"plot", "map", "--method", "meandist", "--out", ""},
		{"plot", "roc", "--data", data, "--methods", "", "--out", filepath.Join(dir, "x.png")},
		{"plot", "roc", "--data", data, "--methods", "benchvec,benchvec", "--out", filepath.Join(dir, "x.png")},
		{"plot", "sgd", "--out", filepath.Join(dir, "sgd.svg")},
		{"plot", "roc", "--data", data, "--methods", "benchvec", "--seed", "4294967296", "--out", filepath.Join(dir, "x.png")},
		{"plot", "map", "--method", "nosuch", "--out", filepath.Join(dir, "x.png")},
		{"plot", "map", "--n", "3", "--out", filepath.Join(dir, "x.png")},
		// Past the memory budget, refused before anything is allocated
		// (they ran out of memory with a Go runtime trace).
		{"plot", "map", "--method", "meandist", "--n", "300000000000", "--out", filepath.Join(dir, "x.png")},
		{"plot", "cpals", "--shape", "20000x20000x2000", "--out", filepath.Join(dir, "x.png")},
	} {
		if code, _, stderr := run(ctx, args...); code != ExitUsage {
			t.Errorf("%q: exit %d, want %d (%s)", args, code, ExitUsage, stderr)
		}
	}
}
