package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
		_, params, _ = detector.Describe(d)
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
