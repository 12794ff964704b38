package all_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
)

// TestModelsBeforeColumnNames loads model files written before models kept
// column names: testdata/dd6908a/METHOD.bin, fitted with the defaults by
// 'anomaly fit' of commit dd6908a on a CSV of 20 rows of columns a, b, c.
// They load without names and score the rows of rows.csv (columns c, b,
// a: a model without names checks none) bit for bit as that build did:
// its 'anomaly score' output is METHOD.scores.csv.
func TestModelsBeforeColumnNames(t *testing.T) {
	dir := filepath.Join("testdata", "dd6908a")
	ds, err := dataset.Load(filepath.Join(dir, "rows.csv"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"gauss", "kde", "kpca", "ocsvm", "svdd"} {
		f, err := os.Open(filepath.Join(dir, m+".bin"))
		if err != nil {
			t.Fatal(err)
		}
		d, err := detector.Load(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		if desc, _ := detector.Describe(d); desc.Columns != nil {
			t.Errorf("%s: names %q", m, desc.Columns)
		}
		if err := detector.CheckColumns(d, ds.Columns); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		scores, err := d.Score(nil, ds.X)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, m+".scores.csv"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(want)), "\n")[1:]
		for i, l := range lines {
			w, _ := strconv.ParseFloat(strings.Split(l, ",")[0], 64)
			if scores[i] != w {
				t.Errorf("%s: row %d scores %v, the old build %v", m, i+1, scores[i], w)
			}
		}
	}
}
