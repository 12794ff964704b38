package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
)

// TestBadInputRealMethods is the bad-input table of issue 17 for the cases
// that need the real methods (the cli package's own table runs on test-only
// methods): runaway memory, data at extreme scales, parameters that mean
// what they say, and degenerate fits. Each case runs the command in a
// scratch directory and checks the exit code, that stderr is one line (or
// one warning line and the summary) naming what matters, and that no
// model or temporary file is left behind by a failure.
func TestBadInputRealMethods(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(17, 17))
	writeRows := func(name string, unit float64) string {
		var b strings.Builder
		b.WriteString("a,b,c\n")
		for i := 0; i < 60; i++ {
			fmt.Fprintf(&b, "%v,%v,%v\n", rng.NormFloat64()*unit, rng.NormFloat64()*unit, rng.NormFloat64()*unit)
		}
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(b.String()), 0o644)
		return p
	}
	train := writeRows("train.csv", 1)
	big := writeRows("big.csv", 1e300)
	tiny := writeRows("tiny.csv", 1e-300)
	e20 := writeRows("e20.csv", 1e20)
	pdindex := filepath.Join(dir, "pdindex.csv")
	os.WriteFile(pdindex, []byte(",a,b\n0,1,2\n1,2,3\n2,3,1\n3,2,2\n"), 0o644)
	short := filepath.Join(dir, "short.libsvm")
	os.WriteFile(short, []byte("0 1:0.5\n1 2:3\n"), 0o644)
	t4 := filepath.Join(dir, "t4.csv")
	os.WriteFile(t4, []byte("a,b,c,d\n"+strings.Repeat("1,2,3,4\n2,1,4,3\n3,3,1,2\n", 5)), 0o644)
	one := filepath.Join(dir, "one.csv")
	os.WriteFile(one, []byte("a,b\n1,2\n"), 0o644)
	konst := filepath.Join(dir, "const.csv")
	os.WriteFile(konst, []byte("a,b\n"+strings.Repeat("1,2\n", 20)), 0o644)
	var wide strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&wide, "0 %d:0.5 %d:0.25 10000000:1\n", 1+rng.IntN(1000), 2000+rng.IntN(1000))
	}
	libsvm := filepath.Join(dir, "wide.libsvm")
	os.WriteFile(libsvm, []byte(wide.String()), 0o644)
	d3k := filepath.Join(dir, "d3k.csv")
	os.WriteFile(d3k, []byte(intCSV(3000, func(i int) (int, int) { return i % 97, i % 89 })), 0o644)
	// A small gzip bomb: 14 kB of .csv.gz holding 1,000,000 rows.
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write([]byte("a,b\n" + strings.Repeat("1.5,2.5\n", 1000000)))
	zw.Close()
	gzBomb := filepath.Join(dir, "bomb.csv.gz")
	os.WriteFile(gzBomb, bomb.Bytes(), 0o644)
	ragged := filepath.Join(dir, "ragged.csv")
	os.WriteFile(ragged, []byte("a,b\n1,2\n3\n"), 0o644)
	out := filepath.Join(dir, "m.bin")
	// A 1.6 GB .npy, sparse on disk: the header of 2,000,000 × 100 float64
	// and a hole.
	huge := filepath.Join(dir, "huge.npy")
	hdr := "{'descr': '<f8', 'fortran_order': False, 'shape': (2000000, 100), }"
	hdr += strings.Repeat(" ", 63-(10+len(hdr))%64) + "\n"
	os.WriteFile(huge, append([]byte("\x93NUMPY\x01\x00"+string([]byte{byte(len(hdr)), byte(len(hdr) >> 8)})), hdr...), 0o644)
	os.Truncate(huge, int64(10+len(hdr))+2000000*100*8)
	model := filepath.Join(dir, "model.bin")
	if code := cli.Run(context.Background(), []string{"fit", "--method", "kde", "--data", train, "--out", model}, io.Discard, io.Discard); code != cli.ExitOK {
		t.Fatalf("fitting the model to score with: exit %d", code)
	}
	wideModel := filepath.Join(dir, "wide.bin")
	if code := cli.Run(context.Background(), []string{"fit", "--method", "ocsvm", "--data", libsvm, "--out", wideModel}, io.Discard, io.Discard); code != cli.ExitOK {
		t.Fatalf("fitting ocsvm to the sparse file: exit %d", code)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // substring of stderr
	}{
		{"features=10^9: refused by the estimate", []string{"fit", "--method", "expose", "--data", train, "--out", out, "--set", "map=rff", "--set", "features=1000000000"}, cli.ExitUsage, "the parameters features=1000000000, map=rff make it so"},
		// kpca's estimates on 3,000 rows: exact 117 MB (a 72 MB Gram
		// matrix and the eigensolver's), Nyström at its default 500
		// landmarks 43 MB, at 3,000 landmarks 656 MB (method.Memory,
		// since kpca moved to the method kit). Over a 100 MB budget
		// the refusal names the lighter setting kpca declares
		// (method.Info.Lighter) when that fits.
		{"kpca exact over the budget: nystrom offered", []string{"fit", "--method", "kpca", "--data", d3k, "--out", out, "--max-memory", "100MB"}, cli.ExitUsage, "with --set method=nystrom it needs about"},
		{"kpca nystrom with n landmarks over the budget", []string{"fit", "--method", "kpca", "--data", d3k, "--out", out, "--max-memory", "100MB", "--set", "method=nystrom", "--set", "landmarks=3000"}, cli.ExitUsage, "make it so; lower them (at the method's defaults with --set method=nystrom it needs about"},
		{"features=10^9 beside parameters that cost nothing: only features and the map it counts for named", []string{"fit", "--method", "expose", "--data", train, "--out", out, "--set", "features=1000000000", "--set", "map=orf", "--set", "radius=2"}, cli.ExitUsage, "the parameters features=1000000000, map=orf make it so"},
		{"r1svm features=10^9", []string{"fit", "--method", "r1svm", "--data", train, "--out", out, "--set", "features=1000000000"}, cli.ExitUsage, "over the memory budget"},
		{"10^7 sparse columns: expose", []string{"fit", "--method", "expose", "--data", libsvm, "--out", out}, cli.ExitData, "the data is too large for the method"},
		{"10^7 sparse columns: kde", []string{"fit", "--method", "kde", "--data", libsvm, "--out", out}, cli.ExitData, "over the memory budget"},
		{"10^7 sparse columns: ocsvm fits, never densified", []string{"fit", "--method", "ocsvm", "--data", libsvm, "--out", out}, cli.ExitOK, "wrote"},
		{"10^7 sparse columns: the ocsvm model scores its training file (its estimate took the rows for dense: 23.9 GB)", []string{"score", "--model", wideModel, "--data", libsvm, "--out", out, "--max-memory", "100MB"}, cli.ExitOK, ""},
		{"--max-memory below one byte (a budget of 0, which the readers took for none)", []string{"fit", "--method", "kde", "--data", train, "--out", out, "--max-memory", "0.5B"}, cli.ExitUsage, "less than one byte"},
		{"10^7 sparse columns: svdd fits", []string{"fit", "--method", "svdd", "--data", libsvm, "--out", out}, cli.ExitOK, "wrote"},
		{"--max-memory too small", []string{"fit", "--method", "kde", "--data", train, "--out", out, "--max-memory", "1KB"}, cli.ExitData, "memory budget of 1 kB (--max-memory)"},
		{"a 1.6 GB .npy over --max-memory: refused from its header by a method that holds its rows, a sample offered", []string{"fit", "--method", "kde", "--data", huge, "--out", out, "--max-memory", "1GB"}, cli.ExitData, "fit on a sample (--sample "},
		{"features × chunk past int64 (the estimate wrapped round to 210 MB and the fit grew to GBs)", []string{"fit", "--method", "expose", "--data", train, "--out", out, "--set", "map=rff", "--set", "features=20000000", "--set", "chunk=57646075227", "--max-memory", "500MB"}, cli.ExitUsage, "the parameters features=20000000, map=rff make it so"},
		{"iforest trees=2^55", []string{"fit", "--method", "iforest", "--data", train, "--out", out, "--set", "trees=36028797018963968"}, cli.ExitUsage, "the parameters trees=36028797018963968 make it so"},
		{"cache_mb=1e18 does not switch the estimate off", []string{"fit", "--method", "ocsvm", "--data", train, "--out", out, "--set", "cache_mb=1e18", "--max-memory", "1KB"}, cli.ExitData, "over the memory budget of 1 kB"},
		{"r1stm permode: mode_features counted", []string{"fit", "--method", "r1stm", "--data", t4, "--out", out, "--shape", "2x2", "--set", "construction=permode", "--set", "mode_features=10000000"}, cli.ExitUsage, "construction=permode, mode_features=10000000 make it so"},
		{"r1svm nu=1e-320 (νn subnormal: the scores were NaN) fits as νn = 1", []string{"fit", "--method", "r1svm", "--data", train, "--out", out, "--set", "nu=1e-320"}, cli.ExitOK, "wrote"},
		{"r1stm gamma_factor=1e308: γ = +Inf refused as the parameter's", []string{"fit", "--method", "r1stm", "--data", t4, "--out", out, "--shape", "2x2", "--set", "gamma_factor=1e308"}, cli.ExitUsage, `parameter gamma_factor="1e+308": times the median rule's γ it makes γ = +Inf`},
		{"r1svm gamma=median gamma_factor=5e-324: γ = 0 (the model was written, then refused by score)", []string{"fit", "--method", "r1svm", "--data", train, "--out", out, "--set", "gamma=median", "--set", "gamma_factor=5e-324"}, cli.ExitUsage, "times the median rule's γ it makes γ = 0, outside float64's range of widths"},
		{"r1svm gamma_factor=1.79e308 at the default rule: γ = +Inf", []string{"fit", "--method", "r1svm", "--data", train, "--out", out, "--set", "gamma_factor=1.79e308"}, cli.ExitUsage, "times the scale_scott rule's γ it makes γ = +Inf, outside float64's range of widths"},
		{"LIBSVM rows that never use the model's last features (implicitly zero) score", []string{"score", "--model", model, "--data", short, "--out", out}, cli.ExitOK, ""},
		{"a model whose loading passes the budget (4× its file)", []string{"score", "--model", model, "--data", train, "--out", out, "--max-memory", "4KB"}, cli.ExitData, "loading the model needs about"},
		{"svdd c below 1/n: the parameter's error, which the data shows", []string{"fit", "--method", "svdd", "--data", train, "--out", out, "--set", "c=1e-300"}, cli.ExitUsage, `parameter c="1e-300": C < 1/n = 0.016666666666666666`},
		{"the same file scored: read in chunks, its width checked from the header before a row is read", []string{"score", "--model", model, "--data", huge, "--out", out, "--max-memory", "1GB"}, cli.ExitData, "wrong feature count: data has 100 columns, the model was fitted on 3"},
		{"×1e300, scale=none: kde", []string{"fit", "--method", "kde", "--data", big, "--out", out, "--set", "scale=none"}, cli.ExitData, "squared distances between rows overflow"},
		{"×1e300, scale=none: ocsvm", []string{"fit", "--method", "ocsvm", "--data", big, "--out", out, "--set", "scale=none"}, cli.ExitData, "column 1 ranges from"},
		{"×1e300, scale=none: expose", []string{"fit", "--method", "expose", "--data", big, "--out", out, "--set", "scale=none"}, cli.ExitData, "overflow float64"},
		{"×1e300, scale=none: kpca", []string{"fit", "--method", "kpca", "--data", big, "--out", out, "--set", "scale=none"}, cli.ExitData, "overflow float64"},
		{"×1e-300, scale=none: svdd", []string{"fit", "--method", "svdd", "--data", tiny, "--out", out, "--set", "scale=none"}, cli.ExitData, "underflow float64"},
		{"×1e-300, scale=none: r1svm", []string{"fit", "--method", "r1svm", "--data", tiny, "--out", out, "--set", "scale=none"}, cli.ExitData, "underflow float64"},
		{"×1e20, scale=none, kernel=linear: svdd (x·x passes float32's range)", []string{"fit", "--method", "svdd", "--data", e20, "--out", out, "--set", "scale=none", "--set", "kernel=linear"}, cli.ExitData, "beyond the single-precision range (3.4e38) of the solver's kernel cache"},
		{"×1e20, scale=none, kernel=poly: ocsvm", []string{"fit", "--method", "ocsvm", "--data", e20, "--out", out, "--set", "scale=none", "--set", "kernel=poly", "--set", "gamma=1"}, cli.ExitData, "beyond the single-precision range"},
		{"×1e300 at the defaults (scale=standard) fits", []string{"fit", "--method", "ocsvm", "--data", big, "--out", out}, cli.ExitOK, "wrote"},
		{"×1e-300 at the defaults fits", []string{"fit", "--method", "kde", "--data", tiny, "--out", out}, cli.ExitOK, "wrote"},
		{"kde bandwidth=1e-300: finite, and warned", []string{"fit", "--method", "kde", "--data", train, "--out", out, "--set", "bandwidth=1e-300"}, cli.ExitOK, "warning: kde: every training score is"},
		{"pandas' row index: not read, with a note", []string{"fit", "--method", "kde", "--data", pdindex, "--out", out}, cli.ExitOK, "column 1 has no name in the header: it is taken as the row index"},
		{"constant data: warned", []string{"fit", "--method", "kde", "--data", konst, "--out", out}, cli.ExitOK, "cannot rank rows"},
		{"--seed to a method without random choices: noted, fits", []string{"fit", "--method", "kde", "--data", train, "--out", out, "--seed", "3"}, cli.ExitOK, "note: kde makes no random choice: --seed changes nothing"},
		{"scale=channel for a vector method: refused (it was standard, silently)", []string{"fit", "--method", "ocsvm", "--data", train, "--out", out, "--set", "scale=channel"}, cli.ExitUsage, "channel standardises per index of a tensor sample's first mode, and ocsvm reads vector rows"},
		{"one training row: warned", []string{"fit", "--method", "ocsvm", "--data", one, "--out", out}, cli.ExitOK, "warning: ocsvm: fitted on a single row"},
		{"--contamination 0", []string{"fit", "--method", "kde", "--data", train, "--out", out, "--contamination", "0"}, cli.ExitUsage, `contamination="0": must be in (0, 0.5]`},
		{"--set contamination=0", []string{"fit", "--method", "ocsvm", "--data", train, "--out", out, "--set", "contamination=0"}, cli.ExitUsage, "must be in (0, 0.5]"},
		{"kpca components ≥ n", []string{"fit", "--method", "kpca", "--data", train, "--out", out, "--set", "components=100000"}, cli.ExitUsage, "must be at most n−1 = 59"},
		{"svdd c and nu", []string{"fit", "--method", "svdd", "--data", train, "--out", out, "--set", "c=0.5", "--set", "nu=0.5"}, cli.ExitUsage, "not both"},
		{"precomputed with a scale stage", []string{"fit", "--method", "ocsvm", "--data", train, "--out", out, "--set", "kernel=precomputed", "--set", "scale=standard"}, cli.ExitUsage, "cannot be scaled"},
		// Streamed fits: the file's own error names file, row and
		// column, without the method or stage it passed through; a
		// --shape the rows cannot hold is a usage error before any read.
		{"ragged CSV, streamed fit: the file's error alone", []string{"fit", "--method", "expose", "--data", ragged, "--out", out}, cli.ExitData, "anomaly: " + ragged + ": row 3: has 1 fields, the header has 2"},
		{"--shape whose product is not the row length, streamed fit", []string{"fit", "--method", "r1stm", "--data", train, "--out", out, "--shape", "3x3"}, cli.ExitUsage, "--shape 3x3 holds 9 values per sample, but the rows of " + train + " have 3"},
		// A fit of a file whose row count only a pass can tell stops
		// once the rows read so far pass the budget, not at the end.
		{"gzip bomb: refused from the rows read so far", []string{"fit", "--method", "kde", "--data", gzBomb, "--out", out, "--max-memory", "60MB"}, cli.ExitData, "anomaly: " + gzBomb + ": fitting at least "},
		{"fit onto its data", []string{"fit", "--method", "kde", "--data", train, "--out", train}, cli.ExitUsage, "write the output to another file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(out)
			var stdout, stderr bytes.Buffer
			code := cli.Run(context.Background(), tc.args, &stdout, &stderr)
			msg := stderr.String()
			if code != tc.code || !strings.Contains(msg, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, msg, tc.code, tc.want)
			}
			lines := strings.Count(msg, "\n")
			if (code != 0 && lines != 1) || lines > 2 || strings.Contains(msg, "NaN") || strings.Contains(msg, "goroutine") {
				t.Errorf("stderr is not one clean line: %q", msg)
			}
			if _, err := os.Stat(out); (err == nil) != (code == 0) {
				t.Errorf("exit %d, model written: %v", code, err == nil)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.HasPrefix(e.Name(), ".") {
					t.Errorf("temporary file %s left behind", e.Name())
				}
			}
		})
	}
}

// TestFarRows scores rows far outside the training data (values up to
// 1e308, whose squared distances and norms overflow float64) with models
// fitted at the defaults: no method answers NaN, and every far row is
// flagged. Under kernel=poly, whose values overflow without a bound, the
// command refuses the rows by number instead, and writes nothing.
func TestFarRows(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, 3))
	var b strings.Builder
	b.WriteString("a,b,c\n")
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&b, "%v,%v,%v\n", rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
	}
	train := filepath.Join(dir, "train.csv")
	os.WriteFile(train, []byte(b.String()), 0o644)
	far := filepath.Join(dir, "far.csv")
	os.WriteFile(far, []byte("a,b,c\n1e100,0,0\n1e160,-1e160,1e160\n-1e300,1e300,1\n1e308,1e308,1e308\n-1.7976931348623157e308,0,0\n0.1,0.2,0.3\n"), 0o644)
	const farRows = 5 // the last row is ordinary
	model, out := filepath.Join(dir, "m.bin"), filepath.Join(dir, "s.csv")
	for _, tc := range []struct {
		method string
		set    []string
		want   string // "" for scores, else a substring of the error
	}{
		{"kde", nil, ""}, {"kpca", nil, ""}, {"ocsvm", nil, ""}, {"svdd", nil, ""},
		{"gauss", nil, ""}, {"expose", nil, ""}, {"iforest", nil, ""}, {"r1svm", nil, ""},
		// gauss's distances once met ±Inf in its triangular solve
		// (NaN, refused as "kernel values overflow").
		{"gauss", []string{"scale=none"}, ""}, {"gauss", []string{"scale=robust", "score=nll"}, ""},
		{"kde", []string{"kernel=exponential"}, ""}, {"svdd", []string{"kernel=laplacian"}, ""},
		{"kpca", []string{"kernel=poly"}, "5 rows cannot be scored (data rows [1 2 3 4 5])"},
		{"ocsvm", []string{"kernel=poly"}, "rows cannot be scored"},
	} {
		name := strings.Join(append([]string{tc.method}, tc.set...), " ")
		t.Run(name, func(t *testing.T) {
			args := []string{"fit", "--method", tc.method, "--data", train, "--out", model}
			for _, s := range tc.set {
				args = append(args, "--set", s)
			}
			if code := cli.Run(context.Background(), args, io.Discard, io.Discard); code != cli.ExitOK {
				t.Fatalf("fit: exit %d", code)
			}
			os.Remove(out)
			var stderr bytes.Buffer
			code := cli.Run(context.Background(), []string{"score", "--model", model, "--data", far, "--out", out}, io.Discard, &stderr)
			if tc.want != "" {
				if code != cli.ExitData || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
					t.Errorf("exit %d, stderr %q; want exit %d and one line with %q", code, stderr.String(), cli.ExitData, tc.want)
				}
				if _, err := os.Stat(out); err == nil {
					t.Errorf("a refused score wrote %s", out)
				}
				return
			}
			if code != cli.ExitOK {
				t.Fatalf("score: exit %d: %s", code, stderr.String())
			}
			got, _ := os.ReadFile(out)
			lines := strings.Split(strings.TrimSpace(string(got)), "\n")[1:]
			if len(lines) != farRows+1 || strings.Contains(string(got), "NaN") {
				t.Fatalf("scores:\n%s", got)
			}
			for i, l := range lines[:farRows] {
				if !strings.HasSuffix(l, ",1") {
					t.Errorf("far row %d is not flagged: %q", i+1, l)
				}
			}
		})
	}
}

// epipe is standard output closed by its reader (`| head -c 1`): every
// write after the first fails with EPIPE.
type epipe struct{ wrote bool }

func (w *epipe) Write(p []byte) (int, error) {
	if w.wrote {
		return 0, syscall.EPIPE
	}
	w.wrote = true
	return len(p), nil
}

// TestScoreBrokenPipe scores to a standard output whose reader has gone:
// an output error (exit 3) that says standard output, one line, and never
// blames the data file being read.
func TestScoreBrokenPipe(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "big.csv")
	os.WriteFile(data, []byte(intCSV(200000, func(i int) (int, int) { return i % 101, i % 7 })), 0o644)
	model := filepath.Join(dir, "g.bin")
	if code := cli.Run(context.Background(), []string{"fit", "--method", "gauss", "--data", data, "--out", model}, io.Discard, io.Discard); code != cli.ExitOK {
		t.Fatalf("fit: exit %d", code)
	}
	var stderr bytes.Buffer
	code := cli.Run(context.Background(), []string{"score", "--model", model, "--data", data}, &epipe{}, &stderr)
	msg := stderr.String()
	if code != cli.ExitInternal || !strings.HasPrefix(msg, "anomaly: standard output: ") || !strings.Contains(msg, "broken pipe") || strings.Count(msg, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit %d and one line \"anomaly: standard output: … broken pipe\"", code, msg, cli.ExitInternal)
	}
}
