package exposebeam

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/internal/output"
)

// CheckOutput refuses an output that is an input: by file identity
// locally (a link to the data is the data), by name on a remote scheme.
func TestCheckOutput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	os.WriteFile(data, []byte("a\n1\n"), 0o644)
	link := filepath.Join(dir, "l.csv")
	if err := os.Symlink(data, link); err != nil {
		t.Fatal(err)
	}
	var se *output.SameFileError
	for _, tc := range []struct {
		out    string
		inputs []string
		same   bool
	}{
		{link, []string{data}, true},
		{filepath.Join(dir, "m"), []string{data}, false},
		{"gs://b/x/s-00000-of-00001.csv", []string{"gs://b/x/s-00000-of-00001.csv"}, true},
		{"gs://b/x/./m", []string{"gs://b/x/m"}, true},
		{"gs://b/x/m", []string{"gs://b/x/d.csv", data}, false},
	} {
		err := CheckOutput(tc.out, tc.inputs)
		if errors.As(err, &se) != tc.same || (!tc.same && err != nil) {
			t.Errorf("%s among %v: %v", tc.out, tc.inputs, err)
		}
	}
	var pe *output.PathError
	if err := CheckOutput(filepath.Join(dir, "missing", "m"), nil); !errors.As(err, &pe) {
		t.Errorf("missing directory: %v", err)
	}
}

// Moments.Columns names both files and the first differing column.
func TestMomentsColumns(t *testing.T) {
	m := Moments{ShardNames: [][]string{{"a", "b", "c"}, nil, {"a", "c", "b"}}}
	_, err := m.Columns([]string{"x1.csv", "x.npy", "x2.csv"})
	if err == nil || !strings.Contains(err.Error(), `x2.csv: column 2 is "c" but it is "b" in x1.csv`) {
		t.Errorf("error %v", err)
	}
	m.ShardNames[2] = []string{"a", "b", "c"}
	if names, err := m.Columns(nil); err != nil || strings.Join(names, ",") != "a,b,c" {
		t.Errorf("same headers: %v, %v", names, err)
	}
}

// A merge of accumulators of other column counts names the shards.
func TestMergeNamesShards(t *testing.T) {
	fn := &MomentsFn{Shards: 2, Paths: []string{"w2.csv", "w3.csv"}}
	a, _ := fn.AddInput(fn.CreateAccumulator(), Block{Shard: 1, Rows: 1, Cols: 3, X: []float64{1, 2, 3}})
	b, _ := fn.AddInput(fn.CreateAccumulator(), Block{Shard: 0, Rows: 1, Cols: 2, X: []float64{1, 2}})
	_, err := fn.MergeAccumulators(a, b)
	if err == nil || !strings.Contains(err.Error(), "w2.csv has 2 columns and w3.csv has 3") {
		t.Errorf("error %v", err)
	}
}
