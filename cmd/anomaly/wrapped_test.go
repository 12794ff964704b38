package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/detector/method/oneclass"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/ocsvm"
	"github.com/kernelad/anomaly/svdd"
)

// sharedState mirrors the shared section of a model file
// (detector/method's baseState): its field names and types are the
// format.
type sharedState struct {
	Dim       int
	Threshold float64
	Warning   string
	Rule      string
	Offset    []float64
	Divisor   []float64
	Index     []int
	Width     int
}

// Issue 34 item 3: model files of ocsvm and svdd whose support vector
// width D makes len(Coef)·D wrap (D = 2⁶² with four coefficients and no
// values: 0; D = 2⁶² + 1 with four values: 4), with a valid checksum and
// a shared state of D columns, passed the size check and panicked in a
// worker of smo.(*Expansion).Eval when scored (anomaly score exited 2
// with a Go panic, anomaly export 3). Load now refuses them as corrupt,
// and the command line exits 2 (a bad model file) with a one-line message
// naming the file, for score and export alike.
func TestWrappedSizeModels(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "s.libsvm")
	if err := os.WriteFile(data, []byte("1 1:0.5 2:1\n-1 2:0.25\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ocsvm", "svdd"} {
		// A model fitted at scale=none gives the header (method, version,
		// resolved parameters); the sections are written here.
		d, err := detector.New(name, map[string]string{"scale": "none"})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Fit(context.Background(), testmat.Normal(20, 2, rand.NewPCG(1, 1))); err != nil {
			t.Fatal(err)
		}
		var saved bytes.Buffer
		if err := detector.Save(&saved, d); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			d  int
			sv []float64
		}{{2, make([]float64, 8)}, {1 << 62, nil}, {1<<62 + 1, []float64{1, 2, 3, 4}}} {
			exp := oneclass.State{D: tc.d, SV: tc.sv, Coef: []float64{0.25, 0.25, 0.25, 0.25}, Gamma: 1}
			var st any = struct {
				NTrain  int
				Exp     oneclass.State
				SVIndex []int
				SVCoef  []float64
				Rho     float64
				Stats   ocsvm.Stats
			}{NTrain: 4, Exp: exp, Rho: 1}
			if name == "svdd" {
				st = struct {
					Exp   oneclass.State
					Gap   float64
					Stats svdd.Stats
				}{Exp: exp, Gap: 0.5}
			}
			file := craft(t, saved.Bytes(), name, sharedState{Dim: tc.d, Threshold: 0.5, Rule: "none"}, st)
			_, err := detector.Load(bytes.NewReader(file))
			if tc.d == 2 { // the same file with consistent sizes: the crafting is right
				if err != nil {
					t.Fatalf("%s: a crafted model of consistent sizes: %v", name, err)
				}
				continue
			}
			if !errors.Is(err, detector.ErrCorrupt) || !strings.Contains(err.Error(), "expansion sizes are inconsistent") {
				t.Errorf("%s, D = %d: Load: %v, want ErrCorrupt for the sizes", name, tc.d, err)
			}
			model := filepath.Join(dir, name+".bin")
			if err := os.WriteFile(model, file, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{
				{"score", "--model", model, "--data", data},
				{"export", "--model", model, "--format", "libsvm", "--out", filepath.Join(dir, "out.libsvm")},
			} {
				var stdout, stderr bytes.Buffer
				code := cli.Run(context.Background(), args, &stdout, &stderr)
				msg := strings.TrimSpace(stderr.String())
				if code != cli.ExitData || strings.Contains(msg, "\n") || !strings.Contains(msg, model) {
					t.Errorf("%s, D = %d: anomaly %s: exit %d, %q; want exit %d and one line naming the file", name, tc.d, args[0], code, msg, cli.ExitData)
				}
				t.Logf("%s, D = %d: anomaly %s: exit %d: %s", name, tc.d, args[0], code, msg)
			}
		}
	}
}

// craft returns a model file with the envelope of the saved model file
// (magic and header) and the given shared and method states, under a
// valid checksum.
func craft(t *testing.T, saved []byte, name string, shared, st any) []byte {
	t.Helper()
	off := len("ANOMALY-MODEL\n")
	off += 4 + int(binary.LittleEndian.Uint32(saved[off:]))
	file := append([]byte(nil), saved[:off]...)
	for _, v := range []any{shared, st} {
		b, err := method.EncodeState(name, v)
		if err != nil {
			t.Fatal(err)
		}
		file = binary.LittleEndian.AppendUint64(file, uint64(len(b)))
		file = append(file, b...)
	}
	return binary.LittleEndian.AppendUint32(file, crc32.ChecksumIEEE(file))
}
