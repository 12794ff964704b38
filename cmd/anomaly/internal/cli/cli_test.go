package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/testmat"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestMain lets the test binary stand in for the anomaly program (with the
// test methods registered) when ANOMALY_CLI_MAIN is set, so the signal test
// can run it as a child process.
func TestMain(m *testing.M) {
	if os.Getenv("ANOMALY_CLI_MAIN") == "1" {
		os.Exit(Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// run drives the program in-process.
func run(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(ctx, args, &out, &errb)
	return code, out.String(), errb.String()
}

// The training data: four normal rows around (0.5, 0.5) and one anomaly.
// meandist's mean is (1.4, 1.4) (the arithmetic mean of the a and b columns).
const trainCSV = `a,b,label
0,0,0
1,0,0
0,1,0
1,1,0
5,5,1
`

// testCSV mixes labelled, unlabelled and anomalous rows. meandist scores
// (squared distance to (1.4, 1.4)): 1.62, 0.32, 13.52, 2.12 (unlabelled,
// skipped by eval), 34.12, 7.72, 6.97, 0.32. The last row, an anomaly,
// repeats the normal row (1, 1), so the two tie exactly: eval's AUC is
// (4 + 4 + ½)/12 = 0.708333 and its average precision
// ⅓·1 + ⅓·1 + ⅓·(3/7) = 0.809524.
const testCSV = `a,b,label
0.5,0.5,0
1,1,0
4,4,1
0,1,-1
6,5,1
-1,0,0
3,3.5,0
1,1,1
`

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fitModel writes train.csv and a fitted meandist model into dir.
func fitModel(t *testing.T, dir string) (train, model string) {
	t.Helper()
	train = write(t, filepath.Join(dir, "train.csv"), trainCSV)
	model = filepath.Join(dir, "model.bin")
	if code, _, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", train, "--out", model); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	return train, model
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s:\n--- got ---\n%s--- want ---\n%s", path, got, want)
	}
}

func TestGoldenOutputs(t *testing.T) {
	dir := t.TempDir()
	_, model := fitModel(t, dir)
	test := write(t, filepath.Join(dir, "test.csv"), testCSV)
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"help.golden", []string{"--help"}},
		{"methods.golden", []string{"methods"}},
		{"methods_json.golden", []string{"methods", "--json"}},
		{"score.golden", []string{"score", "--model", model, "--data", test}},
		{"eval.golden", []string{"eval", "--model", model, "--data", test}},
		{"eval_json.golden", []string{"eval", "--model", model, "--data", test, "--json"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			code, stdout, stderr := run(context.Background(), tc.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden(t, tc.golden, stdout)
		})
	}
}

func TestScoreOut(t *testing.T) {
	dir := t.TempDir()
	_, model := fitModel(t, dir)
	test := write(t, filepath.Join(dir, "test.csv"), testCSV)
	out := filepath.Join(dir, "scores.csv")
	code, stdout, stderr := run(context.Background(), "score", "--model", model, "--data", test, "--out", out)
	if code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	_, want, _ := run(context.Background(), "score", "--model", model, "--data", test)
	got, err := os.ReadFile(out)
	if err != nil || string(got) != want {
		t.Errorf("--out wrote %q (%v); stdout gives %q", got, err, want)
	}
	assertFiles(t, dir, "model.bin", "scores.csv", "test.csv", "train.csv")
}

func TestFitSummaryAndParams(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "train.csv"), trainCSV)
	model := filepath.Join(dir, "m.bin")
	code, stdout, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", train, "--out", model,
		"--contamination", "0.2", "--seed", "7", "--shape", "2x1", "--set", "block=false")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "meandist: fitted 5 rows × 2 features") {
		t.Errorf("summary line %q", stderr)
	}
	d, err := detector.Load(testmat.ReadFile(t, model))
	if err != nil {
		t.Fatal(err)
	}
	desc, _ := detector.Describe(d)
	name, params := desc.Method, desc.Params
	want := map[string]string{"contamination": "0.2", "seed": "7", "shape": "2x1", "block": "false", "block_score": "false", "scale": "standard", "sample": "0", "sample_seed": "0"}
	if name != "meandist" || !mapsEqual(params, want) {
		t.Errorf("model holds %s %v, want meandist %v", name, params, want)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestLabeled(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "train.csv"), trainCSV)
	model := filepath.Join(dir, "m.bin")
	code, _, stderr := run(context.Background(), "fit", "--method", "meanlabeled", "--labeled", "--data", train, "--out", model, "--set", "scale=none")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Fitted on the four normal rows only (in their own units), the
	// threshold is a quantile of their distances to (0.5, 0.5): every one
	// is 0.5.
	d, err := detector.Load(testmat.ReadFile(t, model))
	if err != nil || d.Threshold() != 0.5 {
		t.Errorf("threshold %v (%v), want 0.5", d.Threshold(), err)
	}
}

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := newProgressBar(&b)
	p.update("mean", 1, 4)
	p.update("mean", 2, 4) // within 100 ms of the last: skipped
	p.update("mean", 4, 4) // the last step is always drawn
	p.done()
	want := "\r\x1b[Kmean 1/4 (25%)\r\x1b[Kmean 4/4 (100%)\r\x1b[K"
	if b.String() != want {
		t.Errorf("progress output %q, want %q", b.String(), want)
	}
	var nilBar *progressBar
	nilBar.done() // no-op
}

func TestParseSet(t *testing.T) {
	m, err := parseSet([]string{"gamma=0.5", " shape = 24,51 ", "kernel="})
	want := map[string]string{"gamma": "0.5", "shape": "24,51", "kernel": ""}
	if err != nil || !mapsEqual(m, want) {
		t.Errorf("parseSet = %v, %v; want %v", m, err, want)
	}
	for _, bad := range [][]string{{"gamma"}, {"=1"}, {"a=1", "a=2"}} {
		if _, err := parseSet(bad); err == nil {
			t.Errorf("parseSet(%q) accepted", bad)
		}
	}
}

// assertFiles checks that dir holds exactly the named files: no output, no
// model and no temporary file was left behind.
func assertFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	slices.Sort(got)
	slices.Sort(names)
	if !slices.Equal(got, names) {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

// rewriteModel re-encodes a model file with its JSON header passed through
// edit and a fresh checksum; the layout is detector.Save's: magic line,
// uint32 header length, header, uint64 state length, state, CRC-32.
func rewriteModel(t *testing.T, b []byte, edit func(string) string) []byte {
	t.Helper()
	const magic = "ANOMALY-MODEL\n"
	rest := b[len(magic):]
	hl := binary.LittleEndian.Uint32(rest)
	h := edit(string(rest[4 : 4+hl]))
	tail := rest[4+hl : len(rest)-4] // state length and state
	var out bytes.Buffer
	out.WriteString(magic)
	binary.Write(&out, binary.LittleEndian, uint32(len(h)))
	out.WriteString(h)
	out.Write(tail)
	binary.Write(&out, binary.LittleEndian, crc32.ChecksumIEEE(out.Bytes()))
	return out.Bytes()
}

// setup names the files of a bad-input case: its directory, a training
// file, a model fitted on it and an output path that must not appear.
type setup struct{ dir, train, model, out string }

// TestBadInput runs every kind of bad input of issue 2 (must show 7): each
// gets its exit code, one line on stderr naming the file (and row and
// column where they apply), and leaves no file behind.
func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string // extra files in the case directory
		args  func(s setup) []string
		code  int
		want  []string // substrings of the stderr line; "{dir}" is the case directory
		prep  func(t *testing.T, s setup)
	}{
		{name: "missing data file",
			args: func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "nofile.csv")) },
			code: ExitData, want: []string{"{dir}/nofile.csv: no such file"}},
		{name: "unreadable data file (a directory)",
			prep: func(t *testing.T, s setup) { os.Mkdir(filepath.Join(s.dir, "dir.csv"), 0o755) },
			args: func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "dir.csv")) },
			code: ExitData, want: []string{"{dir}/dir.csv: is a directory"}},
		{name: "unreadable data file (permission)",
			files: map[string]string{"secret.csv": trainCSV},
			prep: func(t *testing.T, s setup) {
				p := filepath.Join(s.dir, "secret.csv")
				os.Chmod(p, 0)
				if f, err := os.Open(p); err == nil {
					f.Close()
					t.Skip("running as root: permissions do not stop reading")
				}
			},
			args: func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "secret.csv")) },
			code: ExitData, want: []string{"{dir}/secret.csv: permission denied"}},
		{name: "unknown extension",
			files: map[string]string{"data.xyz": trainCSV},
			args:  func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "data.xyz")) },
			code:  ExitData, want: []string{"{dir}/data.xyz: unknown extension \".xyz\""}},
		{name: "ragged CSV",
			files: map[string]string{"bad.csv": "a,b\n1,2\n3\n"},
			args:  func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "bad.csv")) },
			code:  ExitData, want: []string{"{dir}/bad.csv: row 3", "1 fields"}},
		{name: "non-numeric CSV",
			files: map[string]string{"bad.csv": "a,b\n1,2\n3,x\n"},
			args:  func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "bad.csv")) },
			code:  ExitData, want: []string{"{dir}/bad.csv: row 3, column 2", "not a number"}},
		{name: "NaN in CSV",
			files: map[string]string{"bad.csv": "a,b\n1,NaN\n"},
			args:  func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "bad.csv")) },
			code:  ExitData, want: []string{"{dir}/bad.csv: row 2, column 2", "NaN"}},
		{name: "Inf in CSV at score time",
			files: map[string]string{"bad.csv": "a,b\n1,2\n-Inf,3\n"},
			args:  func(s setup) []string { return scoreArgs(s, filepath.Join(s.dir, "bad.csv")) },
			code:  ExitData, want: []string{"{dir}/bad.csv: row 3, column 1", "infinite"}},
		{name: "empty data (header only)",
			files: map[string]string{"empty.csv": "a,b\n"},
			args:  func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "empty.csv")) },
			code:  ExitData, want: []string{"{dir}/empty.csv: no data rows"}},
		{name: "empty file",
			files: map[string]string{"empty.csv": ""},
			args:  func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "empty.csv")) },
			code:  ExitData, want: []string{"{dir}/empty.csv: empty file"}},
		{name: "wrong feature count at score time",
			files: map[string]string{"wide.libsvm": "0 1:1 2:2 3:3\n"},
			args:  func(s setup) []string { return scoreArgs(s, filepath.Join(s.dir, "wide.libsvm")) },
			code:  ExitData, want: []string{"{dir}/wide.libsvm: line 1 has feature index 3, past the 2 features the model was fitted on (indices 1 to 2)"}},
		{name: "wrong feature count at eval time",
			files: map[string]string{"wide.libsvm": "# a comment\n1 1:1 2:2\n0 1:1 2:2 3:3\n"},
			args: func(s setup) []string {
				return []string{"eval", "--model", s.model, "--data", filepath.Join(s.dir, "wide.libsvm")}
			},
			code: ExitData, want: []string{"{dir}/wide.libsvm: line 3 has feature index 3, past the 2 features the model was fitted on"}},
		// The model is fitted on train.csv, whose feature columns are a, b.
		{name: "wrong feature count in named columns",
			files: map[string]string{"wide.csv": "a,b,c\n1,2,3\n"},
			args:  func(s setup) []string { return scoreArgs(s, filepath.Join(s.dir, "wide.csv")) },
			code:  ExitData, want: []string{`{dir}/wide.csv: wrong feature count: data has 3 columns (a, b, c), the model was fitted on 2 (a, b): column 3, "c", is not one the model was fitted on`}},
		{name: "the model's columns in another order",
			files: map[string]string{"swapped.csv": "b,a\n1,0\n"},
			args:  func(s setup) []string { return scoreArgs(s, filepath.Join(s.dir, "swapped.csv")) },
			code:  ExitData, want: []string{`{dir}/swapped.csv: the columns are the model's in another order: column 1 is "b" but the model was fitted on "a" (columns a, b); give the columns in the fit's order`}},
		{name: "other column names",
			files: map[string]string{"renamed.csv": "x1,x2\n0,1\n"},
			args:  func(s setup) []string { return scoreArgs(s, filepath.Join(s.dir, "renamed.csv")) },
			code:  ExitData, want: []string{`{dir}/renamed.csv: column 1 is "x1" but the model was fitted on "a" (columns a, b): give the columns in the fit's order and names`}},
		{name: "columns in another order at eval time, numbered as the file's (label first)",
			files: map[string]string{"swapped.csv": "label,b,a\n0,1,0\n1,5,5\n"},
			args: func(s setup) []string {
				return []string{"eval", "--model", s.model, "--data", filepath.Join(s.dir, "swapped.csv")}
			},
			code: ExitData, want: []string{`{dir}/swapped.csv: the columns are the model's in another order: column 2 is "b" but the model was fitted on "a"`}},
		{name: "unknown method",
			args: func(s setup) []string { return []string{"fit", "--method", "nope", "--data", s.train, "--out", s.out} },
			code: ExitUsage, want: []string{"unknown method \"nope\"", "meandist"}},
		{name: "unknown parameter",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--set", "gamma=1") },
			code: ExitUsage, want: []string{"unknown parameter gamma"}},
		{name: "out-of-range parameter (--contamination)",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--contamination", "0.7") },
			code: ExitUsage, want: []string{"contamination", "(0, 0.5]"}},
		{name: "unparsable parameter",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--set", "contamination=lots") },
			code: ExitUsage, want: []string{"contamination=\"lots\"", "not a number"}},
		{name: "malformed --set",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--set", "contamination") },
			code: ExitUsage, want: []string{"--set \"contamination\": want key=value"}},
		{name: "parameter given twice",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--seed", "1", "--set", "seed=2") },
			code: ExitUsage, want: []string{"--seed and --set seed both given"}},
		{name: "bad --shape",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--shape", "2xq") },
			code: ExitUsage, want: []string{"--shape \"2xq\""}},
		{name: "--shape not matching the features",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--shape", "3x1") },
			code: ExitUsage, want: []string{"--shape 3x1 holds 3 values per sample, but the rows of {dir}/train.csv have 2"}},
		{name: "--labeled on a method without labels",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--labeled") },
			code: ExitUsage, want: []string{"--labeled: method meandist does not use labels"}},
		{name: "--labeled on unlabelled data",
			files: map[string]string{"nolabel.csv": "a,b\n1,2\n"},
			args: func(s setup) []string {
				return []string{"fit", "--method", "meanlabeled", "--labeled", "--data", filepath.Join(s.dir, "nolabel.csv"), "--out", s.out}
			},
			code: ExitData, want: []string{"{dir}/nolabel.csv: --labeled needs labels"}},
		{name: "--normal-class with --labeled",
			args: func(s setup) []string {
				return []string{"fit", "--method", "meanlabeled", "--labeled", "--normal-class", "0", "--data", s.train, "--out", s.out}
			},
			code: ExitUsage, want: []string{"--normal-class and --labeled: give one"}},
		{name: "--normal-class on a file with anomaly labels",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--normal-class", "0") },
			code: ExitUsage, want: []string{"has anomaly labels, not class indices"}},
		{name: "unknown flag",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--gamma", "1") },
			code: ExitUsage, want: []string{"unknown flag: --gamma"}},
		{name: "missing required flag",
			args: func(s setup) []string { return []string{"fit", "--method", "meandist", "--data", s.train} },
			code: ExitUsage, want: []string{"--out is required"}},
		{name: "positional argument",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "extra") },
			code: ExitUsage, want: []string{"takes no arguments"}},
		{name: "unknown command",
			args: func(s setup) []string { return []string{"frobnicate"} },
			code: ExitUsage, want: []string{"unknown command \"frobnicate\""}},
		{name: "missing model file",
			args: func(s setup) []string {
				return []string{"score", "--model", filepath.Join(s.dir, "none.bin"), "--data", s.train}
			},
			code: ExitData, want: []string{"{dir}/none.bin: cannot open model: no such file or directory"}},
		{name: "model from standard input",
			args: func(s setup) []string { return []string{"score", "--model", "-", "--data", s.train} },
			code: ExitUsage, want: []string{"--model -: a model is read from a file, not from standard input"}},
		{name: "empty --out",
			args: func(s setup) []string { return []string{"fit", "--method", "meandist", "--data", s.train, "--out", ""} },
			code: ExitUsage, want: []string{"anomaly fit: flag --out is empty: give a file name"}},
		{name: "negative --seed",
			args: func(s setup) []string {
				return []string{"fit", "--method", "meandist", "--data", s.train, "--out", filepath.Join(s.dir, "m.bin"), "--seed", "-1"}
			},
			code: ExitUsage, want: []string{`invalid argument "-1" for "--seed" flag: want a whole number ≥ 0`}},
		{name: "not a model file",
			args: func(s setup) []string { return []string{"score", "--model", s.train, "--data", s.train} },
			code: ExitData, want: []string{"{dir}/train.csv: not a valid model file"}},
		{name: "corrupt model",
			prep: func(t *testing.T, s setup) {
				b, _ := os.ReadFile(s.model)
				b[len(b)/2] ^= 0xff
				write(t, s.model, string(b))
			},
			args: func(s setup) []string { return scoreArgs(s, s.train) },
			code: ExitData, want: []string{"{dir}/model.bin: not a valid model file: checksum mismatch"}},
		{name: "truncated model",
			prep: func(t *testing.T, s setup) {
				b, _ := os.ReadFile(s.model)
				write(t, s.model, string(b[:len(b)-10]))
			},
			args: func(s setup) []string { return scoreArgs(s, s.train) },
			code: ExitData, want: []string{"{dir}/model.bin: not a valid model file: truncated"}},
		{name: "other-version model",
			prep: func(t *testing.T, s setup) {
				b, _ := os.ReadFile(s.model)
				b = rewriteModel(t, b, func(h string) string { return strings.Replace(h, `"version":1`, `"version":99`, 1) })
				write(t, s.model, string(b))
			},
			args: func(s setup) []string { return scoreArgs(s, s.train) },
			code: ExitData, want: []string{"{dir}/model.bin: model of method meandist has state version 99; this build reads version 1"}},
		{name: "model of an unknown method",
			prep: func(t *testing.T, s setup) {
				b, _ := os.ReadFile(s.model)
				b = rewriteModel(t, b, func(h string) string { return strings.Replace(h, `"meandist"`, `"gone"`, 1) })
				write(t, s.model, string(b))
			},
			args: func(s setup) []string { return scoreArgs(s, s.train) },
			code: ExitData, want: []string{"{dir}/model.bin: model was written by method \"gone\""}},
		{name: "eval without labels",
			files: map[string]string{"nolabel.csv": "a,b\n1,2\n"},
			args: func(s setup) []string {
				return []string{"eval", "--model", s.model, "--data", filepath.Join(s.dir, "nolabel.csv")}
			},
			code: ExitData, want: []string{"{dir}/nolabel.csv: no labels"}},
		{name: "eval with one class",
			files: map[string]string{"one.csv": "a,b,y\n1,2,0\n3,4,0\n5,5,-1\n"},
			args: func(s setup) []string {
				return []string{"eval", "--model", s.model, "--data", filepath.Join(s.dir, "one.csv")}
			},
			code: ExitData, want: []string{"{dir}/one.csv: eval: labels hold only one class (0 anomalies, 2 normal rows)"}},
		{name: "bad label value",
			files: map[string]string{"lab.csv": "a,b,y\n1,2,7\n"},
			args: func(s setup) []string {
				return []string{"eval", "--model", s.model, "--data", filepath.Join(s.dir, "lab.csv")}
			},
			code: ExitData, want: []string{"{dir}/lab.csv: row 2, column 3"}},
		{name: "output directory missing",
			args: func(s setup) []string {
				return []string{"fit", "--method", "meandist", "--data", s.train, "--out", filepath.Join(s.dir, "no", "m.bin")}
			},
			code: ExitInternal, want: []string{"{dir}/no/m.bin: cannot write output: no such file or directory"}},
		{name: "output is a directory",
			prep: func(t *testing.T, s setup) { os.Mkdir(filepath.Join(s.dir, "outdir"), 0o755) },
			args: func(s setup) []string { return scoreArgsOut(s, s.train, filepath.Join(s.dir, "outdir")) },
			code: ExitInternal, want: []string{"{dir}/outdir: cannot write output: is a directory"}},
		{name: "score --out with bad data",
			files: map[string]string{"bad.csv": "a,b\n1,2\n3,x\n"},
			args:  func(s setup) []string { return scoreArgsOut(s, filepath.Join(s.dir, "bad.csv"), s.out) },
			code:  ExitData, want: []string{"{dir}/bad.csv: row 3, column 2"}},
		// Fifth sweep: Excel's "Unicode text" (UTF-16LE, CRLF) was called
		// classic Mac OS line endings, a workbook UTF-16 text.
		{name: "UTF-16 CSV with CRLF line ends",
			files: map[string]string{"u16.csv": "\xff\xfea\x00,\x00b\x00\r\x00\n\x001\x00,\x002\x00\r\x00\n\x00"},
			args:  func(s setup) []string { return fitArgs(s, filepath.Join(s.dir, "u16.csv")) },
			code:  ExitData, want: []string{"{dir}/u16.csv: the file is UTF-16 text", "save it as UTF-8"}},
		{name: "xlsx workbook named .csv",
			files: map[string]string{"book.csv": "PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00[Content_Types].xml"},
			args:  func(s setup) []string { return scoreArgs(s, filepath.Join(s.dir, "book.csv")) },
			code:  ExitData, want: []string{"{dir}/book.csv: the file is a zip archive, as an Excel .xlsx", "save the sheet as CSV UTF-8"}},
		// Fifth sweep: pflag kept the last of a repeated flag, so
		// --out a --out b wrote only b and a was silently not written.
		{name: "--out given twice",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--out", s.out+"2") },
			code: ExitUsage, want: []string{`anomaly fit: --out is given twice ("{dir}/out", then "{dir}/out2"): give it once`}},
		{name: "--data given twice",
			args: func(s setup) []string { return append(scoreArgs(s, s.train), "--data", s.train) },
			code: ExitUsage, want: []string{"anomaly score: --data is given twice"}},
		// eval on class labels: "--label y" was offered to ARFF and
		// LIBSVM files too, where it means nothing.
		{name: "eval on an ARFF of three classes",
			files: map[string]string{"tri.arff": "@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute class {p,q,r}\n@data\n1,2,p\n2,3,q\n3,1,r\n"},
			args: func(s setup) []string {
				return []string{"eval", "--model", s.model, "--data", filepath.Join(s.dir, "tri.arff")}
			},
			code: ExitUsage, want: []string{"{dir}/tri.arff holds classes, not anomaly labels: name the normal class with --normal-class N, N the 0-based position of its value"}},
		{name: "eval on LIBSVM class labels",
			files: map[string]string{"cls.libsvm": "3 1:1 2:2\n2 1:2 2:3\n1 1:3 2:1\n"},
			args: func(s setup) []string {
				return []string{"eval", "--model", s.model, "--data", filepath.Join(s.dir, "cls.libsvm")}
			},
			code: ExitUsage, want: []string{"{dir}/cls.libsvm holds class labels, not anomaly labels (1/0, or +1/-1 by LIBSVM's one-class convention): name the normal class with --normal-class N, N its label"}},
		// fit --out naming an existing data file: the model replaced it.
		{name: "fit --out an existing data file",
			files: map[string]string{"test.csv": trainCSV},
			args: func(s setup) []string {
				return append(fitArgs(s, s.train)[:5:5], "--out", filepath.Join(s.dir, "test.csv"))
			},
			code: ExitUsage, want: []string{"--out {dir}/test.csv: the file exists and is named as a data file; a model would replace it"}},
		// score --out naming another model: the scores replaced it.
		{name: "score --out an existing model file",
			prep: func(t *testing.T, s setup) {
				b, _ := os.ReadFile(s.model)
				os.WriteFile(filepath.Join(s.dir, "other.bin"), b, 0o644)
			},
			args: func(s setup) []string { return scoreArgsOut(s, s.train, filepath.Join(s.dir, "other.bin")) },
			code: ExitUsage, want: []string{"--out {dir}/other.bin: the file is a model written by 'anomaly fit'; the scores would replace it"}},
		{name: "interrupted fit",
			args: func(s setup) []string { return append(fitArgs(s, s.train), "--set", "block=true") },
			code: ExitInterrupted, want: []string{"fit interrupted; no model written to {dir}/out"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			train, model := fitModel(t, dir)
			s := setup{dir: dir, train: train, model: model, out: filepath.Join(dir, "out")}
			for name, content := range tc.files {
				write(t, filepath.Join(dir, name), content)
			}
			if tc.prep != nil {
				tc.prep(t, s)
			}
			before := listDir(t, dir)
			ctx := context.Background()
			if tc.code == ExitInterrupted {
				c, cancel := context.WithCancel(ctx)
				cancel()
				ctx = c
			}
			code, stdout, stderr := run(ctx, tc.args(s)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if !strings.HasPrefix(stderr, "anomaly: ") || strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
				t.Errorf("stderr is not one line starting \"anomaly: \": %q", stderr)
			}
			for _, w := range tc.want {
				if w = strings.ReplaceAll(w, "{dir}", dir); !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
			assertFiles(t, dir, before...)
		})
	}
}

func fitArgs(s setup, data string) []string {
	return []string{"fit", "--method", "meandist", "--data", data, "--out", s.out}
}

func scoreArgs(s setup, data string) []string {
	return []string{"score", "--model", s.model, "--data", data}
}

func scoreArgsOut(s setup, data, out string) []string {
	return []string{"score", "--model", s.model, "--data", data, "--out", out}
}

func listDir(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// fitMeanDist writes the training CSV to dir and fits the meandist test
// method on it (with the extra flags) into dir/model.bin.
func fitMeanDist(t *testing.T, dir string, flags ...string) (train, model string) {
	t.Helper()
	train = write(t, filepath.Join(dir, "train.csv"), trainCSV)
	model = filepath.Join(dir, "model.bin")
	args := append([]string{"fit", "--method", "meandist", "--data", train, "--out", model}, flags...)
	if code, _, stderr := run(context.Background(), args...); code != ExitOK {
		t.Fatalf("fit: exit %d: %s", code, stderr)
	}
	return train, model
}

// TestInterruptScore runs score as a child process on a model whose
// scoring never returns, sends SIGINT and checks that it exits promptly
// with code 130, writing nothing.
func TestInterruptScore(t *testing.T) {
	dir := t.TempDir()
	train, model := fitMeanDist(t, dir, "--set", "block_score=true")
	started := filepath.Join(t.TempDir(), "scoring")
	stderr := interruptChild(t, []string{"ANOMALY_TEST_SCORING=" + started}, func() bool {
		_, err := os.Stat(started)
		return err == nil
	}, "score", "--model", model, "--data", train, "--out", filepath.Join(dir, "scores.csv"))
	if !strings.Contains(stderr, "anomaly: score interrupted; no scores written to") {
		t.Errorf("stderr %q", stderr)
	}
	assertFiles(t, dir, "model.bin", "train.csv")
}

// A hang-up (a closed terminal) ends score as SIGINT does: exit 130, no
// temporary file left (it was killed by the signal, its temporary left);
// eval says it was interrupted (it was killed without a word).
func TestInterruptHangupAndEval(t *testing.T) {
	dir := t.TempDir()
	train, model := fitMeanDist(t, dir, "--set", "block_score=true")
	started := filepath.Join(t.TempDir(), "scoring")
	ready := func() bool {
		_, err := os.Stat(started)
		return err == nil
	}
	env := []string{"ANOMALY_TEST_SCORING=" + started}
	stderr := signalChild(t, syscall.SIGHUP, env, ready, "score", "--model", model, "--data", train, "--out", filepath.Join(dir, "scores.csv"))
	if !strings.Contains(stderr, "anomaly: score interrupted; no scores written to") {
		t.Errorf("score, SIGHUP: stderr %q", stderr)
	}
	assertFiles(t, dir, "model.bin", "train.csv")
	os.Remove(started)
	stderr = interruptChild(t, env, ready, "eval", "--model", model, "--data", train)
	if !strings.Contains(stderr, "anomaly: eval interrupted") {
		t.Errorf("eval, SIGINT: stderr %q", stderr)
	}
}

// TestInterruptSignal runs the program as a child process, sends SIGINT
// while a fit is running and checks that it exits promptly with code 130,
// leaving no model and no temporary file (issue 7, must show 4).
func TestInterruptSignal(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "train.csv"), trainCSV)
	model := filepath.Join(dir, "model.bin")
	// The test method writes this file once its fit has started (the
	// signal handler is installed before).
	started := filepath.Join(t.TempDir(), "fitting")
	stderr := interruptChild(t, []string{"ANOMALY_TEST_FITTING=" + started}, func() bool {
		_, err := os.Stat(started)
		return err == nil
	}, "fit", "--method", "meandist", "--data", train, "--out", model, "--set", "block=true")
	if !strings.Contains(stderr, "anomaly: fit interrupted; no model written") {
		t.Errorf("stderr %q", stderr)
	}
	assertFiles(t, dir, "train.csv")
}

// TestInterruptBlockedRead sends SIGINT to a fit whose data file is a
// named pipe no one writes: the reader is blocked (in open) and looks at
// no context, yet the command exits 130 and leaves no file (it ignored
// SIGINT and SIGTERM, and SIGKILL left a temporary model file behind).
func TestInterruptBlockedRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "data.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	// Nothing shows that the reader is blocked in open(2): give the
	// child a second, far more than it takes to start and install the
	// signal handler.
	start := time.Now()
	stderr := interruptChild(t, nil, func() bool { return time.Since(start) > time.Second },
		"fit", "--method", "meandist", "--data", fifo, "--out", filepath.Join(dir, "model.bin"))
	if !strings.Contains(stderr, "anomaly: fit interrupted; no model written") {
		t.Errorf("stderr %q", stderr)
	}
	assertFiles(t, dir, "data.csv")
}

// TestInterruptBlockedWrite sends SIGINT to a fit whose output is a named
// pipe no one reads: the open waits for a reader, and the command still
// exits 130 (a blocking open(2) ignored SIGINT and SIGTERM).
func TestInterruptBlockedWrite(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "train.csv"), trainCSV)
	fifo := filepath.Join(dir, "model.bin")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	start := time.Now()
	stderr := interruptChild(t, nil, func() bool { return time.Since(start) > time.Second },
		"fit", "--method", "meandist", "--data", train, "--out", fifo)
	if !strings.Contains(stderr, "interrupted while waiting for a reader of") {
		t.Errorf("stderr %q", stderr)
	}
	assertFiles(t, dir, "model.bin", "train.csv")
}

// TestInterruptStalledReader sends SIGINT to a score writing to a named
// pipe whose reader opened it and reads nothing: the blocked write ends
// and the command exits 130 saying the output was cut short (it waited
// for the reader to drain the pipe, then said no scores were written).
func TestInterruptStalledReader(t *testing.T) {
	dir := t.TempDir()
	_, model := fitMeanDist(t, dir)
	var rows strings.Builder
	rows.WriteString("a,b\n")
	for i := range 200000 {
		fmt.Fprintf(&rows, "%d,%d\n", i%7, i%5)
	}
	data := write(t, filepath.Join(dir, "many.csv"), rows.String())
	fifo := filepath.Join(dir, "scores.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	// The reader: open, never read (O_RDWR would make the test its own
	// writer; O_RDONLY|O_NONBLOCK opens at once).
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	stderr := interruptChild(t, nil, func() bool { return time.Since(start) > 2*time.Second },
		"score", "--model", model, "--data", data, "--out", fifo)
	if !strings.Contains(stderr, "were cut short") {
		t.Errorf("stderr %q", stderr)
	}
}

// interruptChild runs the program with args as a child process (env added
// to its environment), sends SIGINT once ready reports true, and checks
// that it exits with code 130 within 2 s; it returns the child's stderr.
func interruptChild(t *testing.T, env []string, ready func() bool, args ...string) string {
	t.Helper()
	return signalChild(t, syscall.SIGINT, env, ready, args...)
}

// signalChild is interruptChild with another signal.
func signalChild(t *testing.T, sig syscall.Signal, env []string, ready func() bool, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "ANOMALY_CLI_MAIN=1"), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !ready() {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("%s did not start; stderr %q", args[0], stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	sent := time.Now()
	cmd.Process.Signal(sig)
	err := cmd.Wait()
	took := time.Since(sent)
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit %d (%v), want %d; stderr %q", code, err, ExitInterrupted, stderr.String())
	}
	if took > 2*time.Second {
		t.Errorf("exit took %v after %v", took, sig)
	}
	t.Logf("exited %v after %v", took, sig)
	return stderr.String()
}

// TestFitReplacesItsOwnModel: fit refuses --out naming an existing data
// file, but a model written earlier under a data-like name (model.txt,
// m.npy) is replaced by the next fit, as any other model is.
func TestFitReplacesItsOwnModel(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "train.csv"), trainCSV)
	for _, name := range []string{"model.txt", "m.npy", "m.svm"} {
		out := filepath.Join(dir, name)
		for i := range 2 {
			if code, _, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", train, "--out", out); code != 0 {
				t.Fatalf("%s, fit %d: exit %d, %s", name, i+1, code, stderr)
			}
		}
	}
}
