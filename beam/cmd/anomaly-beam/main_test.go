package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/kernelad/anomaly/detector"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// TestFitThenScore runs both commands on the direct runner over two small
// CSV shards and reads the model back as 'anomaly score' does.
func TestFitThenScore(t *testing.T) {
	dir := t.TempDir()
	for s := 0; s < 2; s++ {
		var b strings.Builder
		b.WriteString("a,b,label\n")
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, "%d,%g,%d\n", i%7, float64(i*s)/3, i%2)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("s%d.csv", s)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	*runners.Runner = "direct"
	*input, *label = filepath.Join(dir, "s*.csv"), "label"
	*out = filepath.Join(dir, "model")
	sets, *seed = setFlag{"features=64"}, "4"
	if err := run(context.Background(), "fit"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(*out)
	if err != nil {
		t.Fatal(err)
	}
	d, err := detector.Load(f)
	f.Close()
	var params map[string]string
	if err == nil {
		desc, _ := detector.Describe(d)
		params = desc.Params
	}
	if err != nil || params["seed"] != "4" || params["features"] != "64" {
		t.Fatalf("model: params %v, error %v", params, err)
	}
	*model, *out, sets, *seed = *out, filepath.Join(dir, "scores"), nil, ""
	if err := run(context.Background(), "score"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "scores-00001-of-00002.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 41 || lines[0] != "id,score,anomaly" || !strings.HasPrefix(lines[40], "s1.csv:39,") {
		t.Errorf("score file: %d lines, first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		sets []string
		want string
	}{
		{"", nil, "no command"},
		{"train", nil, "unknown command"},
		{"fit", []string{"seed"}, "key=value"},
		{"fit", []string{"seed=1", "seed=2"}, "twice"},
		{"fit", []string{"contamination=0.2"}, "once"},
	} {
		*input, *out, *model, *cont = "x", "y", "", "0.1"
		sets = tc.sets
		err := run(context.Background(), tc.cmd)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: error %v, want %q", tc.cmd, tc.sets, err, tc.want)
		}
	}
}

// writeCSV writes a CSV of the header and rows rows of small numbers.
func writeCSV(t *testing.T, path, header string, rows int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(header + "\n")
	n := strings.Count(header, ",") + 1
	for i := 0; i < rows; i++ {
		for j := 0; j < n; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%d", (i*(j+3))%11)
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// command runs cmd as main does and returns its exit code and message
// (0 and "" when it succeeds).
func command(t *testing.T, ctx context.Context, cmd, in, o, mdl string) (int, string) {
	t.Helper()
	*runners.Runner = "direct"
	*input, *out, *model, *label, *seed, *cont, *chunk = in, o, mdl, "", "", "", 0
	sets = nil
	if cmd == "fit" {
		sets = setFlag{"features=32"}
	}
	err := run(ctx, cmd)
	if err == nil {
		return 0, ""
	}
	return exitCode(ctx, cmd, err)
}

// fitModel fits a model on data with command's settings and writes it to
// m.bin beside data, failing t when the fit does not succeed; it returns
// the model's path.
func fitModel(t *testing.T, data string) string {
	t.Helper()
	m := filepath.Join(filepath.Dir(data), "m.bin")
	if code, msg := command(t, context.Background(), "fit", data, m, ""); code != 0 {
		t.Fatalf("fit %s: exit %d, %q", data, code, msg)
	}
	return m
}

// otherFiles lists the names in dir that are none of keep.
func otherFiles(t *testing.T, dir string, keep ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	for _, e := range ents {
		if !slices.Contains(keep, e.Name()) {
			extra = append(extra, e.Name())
		}
	}
	return extra
}

// The tester's defect 1: fit --input bd2.csv --out bd2.csv replaced the
// training data by the model (exit 0), also through a glob.
func TestFitRefusesInputAsOutput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "bd2.csv")
	writeCSV(t, data, "a,b,c", 20)
	before, _ := os.ReadFile(data)
	for _, in := range []string{data, filepath.Join(dir, "b*.csv")} {
		code, msg := command(t, context.Background(), "fit", in, data, "")
		if code != 1 || !strings.Contains(msg, "is both an input and the output") {
			t.Errorf("--input %s: exit %d, %q", in, code, msg)
		}
	}
	if after, _ := os.ReadFile(data); string(after) != string(before) {
		t.Error("the training data was changed")
	}
}

// Defect 2: score's output shard bq/s-00000-of-00001.csv was an input
// shard and was replaced by scores; the model must not be one either.
func TestScoreRefusesInputAsOutput(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "s-00000-of-00001.csv")
	writeCSV(t, shard, "a,b,c", 20)
	m := fitModel(t, shard)
	before, _ := os.ReadFile(shard)
	code, msg := command(t, context.Background(), "score", filepath.Join(dir, "*.csv"), filepath.Join(dir, "s"), m)
	if code != 1 || !strings.Contains(msg, "is both an input and the output") {
		t.Errorf("shard as output: exit %d, %q", code, msg)
	}
	if after, _ := os.ReadFile(shard); string(after) != string(before) {
		t.Error("the input shard was changed")
	}
	m2 := filepath.Join(dir, "ms-00000-of-00001.csv")
	raw, _ := os.ReadFile(m)
	os.WriteFile(m2, raw, 0o644)
	code, msg = command(t, context.Background(), "score", shard, filepath.Join(dir, "ms"), m2)
	if code != 1 || !strings.Contains(msg, "is both an input and the output") {
		t.Errorf("model as output: exit %d, %q", code, msg)
	}
	if after, _ := os.ReadFile(m2); string(after) != string(raw) {
		t.Error("the model was changed")
	}
}

// Defect 3: the statistics side file Out+".stats.json" was written and
// deleted, taking a user's file of that name with it.
func TestFitKeepsUserSideFile(t *testing.T) {
	dir := t.TempDir()
	writeCSV(t, filepath.Join(dir, "d.csv"), "a,b,c", 20)
	side := filepath.Join(dir, "m.bin.stats.json")
	os.WriteFile(side, []byte("mine\n"), 0o644)
	fitModel(t, filepath.Join(dir, "d.csv"))
	if b, err := os.ReadFile(side); err != nil || string(b) != "mine\n" {
		t.Errorf("user's %s: %q, %v", side, b, err)
	}
	if extra := otherFiles(t, dir, "d.csv", "m.bin", "m.bin.stats.json"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

// Defect 4: an interrupted fit or score (SIGTERM) left a partial model or
// a truncated score file in place of the old one and did not exit 130.
// A cancelled context is what SIGTERM makes of run's context.
func TestInterruptedKeepsOldOutputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, "a,b,c", 20)
	m := fitModel(t, data)
	old, _ := os.ReadFile(m)
	scores := filepath.Join(dir, "s-00000-of-00001.csv")
	os.WriteFile(scores, []byte("old scores\n"), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, msg := command(t, ctx, "fit", data, m, "")
	if code != 130 || msg != "fit interrupted; no model written to "+m {
		t.Errorf("fit: exit %d, %q", code, msg)
	}
	code, msg = command(t, ctx, "score", data, filepath.Join(dir, "s"), m)
	if code != 130 || !strings.HasPrefix(msg, "score interrupted; no scores written to ") {
		t.Errorf("score: exit %d, %q", code, msg)
	}
	if b, _ := os.ReadFile(m); string(b) != string(old) {
		t.Error("the old model was changed")
	}
	if b, _ := os.ReadFile(scores); string(b) != "old scores\n" {
		t.Errorf("the old scores were changed: %.40q", b)
	}
	if extra := otherFiles(t, dir, "d.csv", "m.bin", "s-00000-of-00001.csv"); extra != nil {
		t.Errorf("left behind: %v", extra)
	}
}

// Defect 5: shards with other headers were fitted into one model, and a
// file of reordered columns was scored.
func TestColumnNames(t *testing.T) {
	dir := t.TempDir()
	for name, h := range map[string]string{"x1.csv": "a,b,c", "x2.csv": "b,a,c", "x3.csv": "p,q,r"} {
		writeCSV(t, filepath.Join(dir, name), h, 20)
	}
	m := filepath.Join(dir, "m.bin")
	for _, g := range []string{"x[12].csv", "x[13].csv"} {
		code, msg := command(t, context.Background(), "fit", filepath.Join(dir, g), m, "")
		if code != 2 || !strings.Contains(msg, "x1.csv") || !strings.Contains(msg, "column 1") {
			t.Errorf("fit %s: exit %d, %q", g, code, msg)
		}
	}
	if _, err := os.Stat(m); err == nil {
		t.Fatal("a model was written")
	}
	fitModel(t, filepath.Join(dir, "x1.csv"))
	f, _ := os.Open(m)
	d, err := detector.Load(f)
	f.Close()
	desc, _ := detector.Describe(d)
	if err != nil || !slices.Equal(desc.Columns, []string{"a", "b", "c"}) {
		t.Errorf("model's columns %v, %v", desc.Columns, err)
	}
	code, msg := command(t, context.Background(), "score", filepath.Join(dir, "x2.csv"), filepath.Join(dir, "s"), m)
	if code != 2 || !strings.Contains(msg, "x2.csv") || !strings.Contains(msg, "another order") {
		t.Errorf("score x2.csv: exit %d, %q", code, msg)
	}
}

// Defect 6: a bad shard printed Beam's plan dump (13 lines) and exited 1;
// the column-count error did not name the files; a missing directory of
// --out was created.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ragged.csv"), []byte("a,b,c\n1,2,3\n4,5\n"), 0o644)
	code, msg := command(t, context.Background(), "fit", filepath.Join(dir, "ragged.csv"), filepath.Join(dir, "m.bin"), "")
	if code != 2 || msg != "ragged.csv: row 3: has 2 fields, the header has 3" {
		t.Errorf("ragged: exit %d, %q", code, msg)
	}
	writeCSV(t, filepath.Join(dir, "w2.csv"), "a,b", 20)
	writeCSV(t, filepath.Join(dir, "w3.csv"), "a,b,c", 20)
	code, msg = command(t, context.Background(), "fit", filepath.Join(dir, "w*.csv"), filepath.Join(dir, "m.bin"), "")
	if code != 2 || !strings.Contains(msg, "w2.csv") || !strings.Contains(msg, "w3.csv") || strings.Contains(msg, "\n") {
		t.Errorf("2 and 3 columns: exit %d, %q", code, msg)
	}
	missing := filepath.Join(dir, "nonexist")
	code, msg = command(t, context.Background(), "fit", filepath.Join(dir, "w3.csv"), filepath.Join(missing, "m.bin"), "")
	if code != 3 || !strings.Contains(msg, "no such file or directory") {
		t.Errorf("missing directory: exit %d, %q", code, msg)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("the missing directory was created")
	}
}
