package shareddata

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// AnchorsPath is the peers' results in the shared folder:
// <repository>/../shared/anchors/RESULTS.md.
func AnchorsPath() string { return filepath.Join(filepath.Dir(Dir()), "anchors", "RESULTS.md") }

// MedianAUCs returns column's "Median AUC-ROC" figures of
// ../shared/anchors/RESULTS.md by data set (the medians over seeds 1–3 of
// the peers' runs, e.g. column "kde_scott" or "iforest"), read from the
// file rather than copied into the tests. tb is skipped when the file is
// absent and fails when the table or the column is not there.
func MedianAUCs(tb testing.TB, column string) map[string]float64 {
	tb.Helper()
	f, err := os.Open(AnchorsPath())
	if err != nil {
		tb.Skipf("anchor figures not found (expected ../shared/anchors/RESULTS.md beside the repository): %v", err)
	}
	defer f.Close()
	m, err := readTable(f, "Median AUC-ROC", column)
	if err != nil {
		tb.Fatalf("%s: %v", AnchorsPath(), err)
	}
	return m
}

// readTable reads the Markdown table under the "## section" heading of r
// and returns column's numeric cells by the first cell of their row; cells
// that are not numbers (a failed run) are left out.
func readTable(r io.Reader, section, column string) (map[string]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	in, col := false, -1
	out := map[string]float64{}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			if in && col >= 0 {
				break // the next section
			}
			in = strings.TrimSpace(strings.TrimLeft(line, "#")) == section
			continue
		}
		if !in || !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if col < 0 {
			for i, c := range cells {
				if c == column {
					col = i
				}
			}
			if col < 0 {
				return nil, fmt.Errorf("table %q has no column %q", section, column)
			}
			continue
		}
		if col >= len(cells) || strings.HasPrefix(cells[0], "---") {
			continue
		}
		if v, err := strconv.ParseFloat(cells[col], 64); err == nil {
			out[cells[0]] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if col < 0 {
		return nil, fmt.Errorf("no table under a %q heading", section)
	}
	return out, nil
}
