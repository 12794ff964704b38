package exposebeam

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// writeNPY writes X as a little-endian float64 C-order .npy file (format
// 1.0: magic, header length, a Python dict literal padded to 64 bytes).
func writeNPY(t testing.TB, path string, X *mat.Dense) {
	t.Helper()
	n, c := X.Dims()
	hdr := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", n, c)
	pad := 64 - (10+len(hdr)+1)%64
	hdr += strings.Repeat(" ", pad%64) + "\n"
	buf := append([]byte("\x93NUMPY\x01\x00"), 0, 0)
	binary.LittleEndian.PutUint16(buf[8:], uint16(len(hdr)))
	buf = append(buf, hdr...)
	for i := 0; i < n; i++ {
		for _, v := range X.RawRowView(i) {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
		}
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestNPYShards fits .npy shards (read by the core loader) on the direct
// runner and compares with the in-process fit, as for CSV.
func TestNPYShards(t *testing.T) {
	X := gaussian(2000, 3, 17)
	dir := t.TempDir()
	for s := 0; s < 4; s++ {
		writeNPY(t, filepath.Join(dir, fmt.Sprintf("part-%d.npy", s)), mat.DenseCopyOf(X.Slice(s*500, (s+1)*500, 0, 3)))
	}
	params := map[string]string{"seed": "8", "map": "rff", "features": "150"}
	out := filepath.Join(dir, "m")
	if _, err := Fit(context.Background(), FitOptions{Runner: "direct", Input: filepath.Join(dir, "*.npy"), Out: out, Params: params}); err != nil {
		t.Fatal(err)
	}
	_, got := loadModel(t, out)
	md, td, detail := modelDiff(t, got, fitInProcess(t, X, params))
	if md > 1e-12 || td > 1e-12 {
		t.Errorf("model differs by %g (%s), threshold by %g", md, detail, td)
	}
}

// TestFitErrors checks the failures a user can cause.
func TestFitErrors(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, gaussian(50, 2, 1), 2)
	for _, tc := range []struct {
		name   string
		opt    FitOptions
		substr string
	}{
		{"sgd solver", FitOptions{Input: glob, Params: map[string]string{"solver": "sgd"}}, "batch"},
		{"unknown parameter", FitOptions{Input: glob, Params: map[string]string{"nu": "0.1"}}, "nu"},
		{"no match", FitOptions{Input: filepath.Join(dir, "none-*.csv")}, "no files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Runner, tc.opt.Out = "direct", filepath.Join(dir, "m")
			_, err := Fit(context.Background(), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.substr) {
				t.Errorf("error %v, want one mentioning %q", err, tc.substr)
			}
		})
	}
	// Shards with different column counts fail in the statistics pass.
	other := filepath.Join(dir, "wide")
	os.Mkdir(other, 0o755)
	writeShards(t, other, gaussian(10, 3, 1), 1)
	os.Rename(filepath.Join(other, "part-000.csv"), filepath.Join(dir, "part-009.csv"))
	if _, err := Fit(context.Background(), FitOptions{Runner: "direct", Input: glob, Out: filepath.Join(dir, "m")}); err == nil || !strings.Contains(err.Error(), "columns") {
		t.Errorf("shards of 2 and 3 columns: error %v", err)
	}
}
