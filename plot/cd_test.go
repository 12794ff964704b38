package plot_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/plot"
	"github.com/kernelad/anomaly/stats"
)

// Table 3 of the R1STM paper (Erfani et al.) as printed: AUC, training and
// test time of 5 methods on 9 data sets.
var (
	r1stmMethods = []string{"H1SVM", "DRDAE", "R1SVM", "1STM", "R1STM"}
	r1stmAUC     = [][]float64{
		{0.78, 0.98, 0.98, 0.93, 0.98}, {0.84, 0.98, 0.98, 0.98, 0.99}, {0.83, 0.98, 0.99, 0.96, 0.99},
		{0.90, 0.96, 0.96, 0.97, 0.98}, {0.85, 0.96, 0.96, 0.95, 0.99}, {0.86, 0.97, 0.96, 0.93, 0.99},
		{0.87, 0.97, 0.97, 0.94, 0.99}, {0.88, 0.97, 0.97, 0.96, 0.99}, {0.81, 0.98, 0.96, 0.95, 0.98},
	}
	r1stmTrain = [][]float64{
		{4.77e5, 7.69e2, 3.21, 12.43, 2.11}, {8.04e3, 6.15e2, 0.56, 0.27, 0.09}, {1.70e3, 3.49e2, 0.21, 0.45, 0.05},
		{2.07e5, 4.87e2, 1.38, 2.72, 0.51}, {2.97e4, 2.05e2, 0.10, 0.41, 0.14}, {2.23e5, 4.83e2, 1.62, 7.32, 1.36},
		{2.94e5, 5.08e2, 1.69, 8.01, 1.52}, {4.18e5, 5.63e2, 1.83, 8.12, 1.71}, {5.32e5, 1.21e3, 6.06, 18.21, 3.01},
	}
	r1stmTest = [][]float64{
		{6.65e3, 96.48, 1.16, 4.35, 0.91}, {6.73e2, 8.12, 0.06, 0.13, 0.04}, {6.01e2, 10.09, 0.03, 0.22, 0.02},
		{6.23e3, 52.02, 0.29, 1.43, 0.24}, {1.56e3, 21.19, 0.02, 0.20, 0.07}, {4.33e3, 61.00, 0.68, 2.92, 0.58},
		{4.86e3, 69.41, 0.74, 3.46, 0.71}, {5.37e3, 87.32, 0.85, 3.94, 0.80}, {7.75e3, 1.35e2, 2.16, 5.14, 1.12},
	}
)

// The critical-difference diagram and the average-rank bars of the paper's
// Table 3 decode as PNG images of the requested size. PLOT_KEEP=dir keeps
// the pictures there to look at.
func TestCDPictures(t *testing.T) {
	auc, err := stats.Friedman(r1stmAUC, stats.HigherBetter)
	if err != nil {
		t.Fatal(err)
	}
	cd := stats.CriticalDifference(auc.K, auc.N, 0.05)
	d, err := plot.CDDiagram("AUC, Nemenyi α = 0.05 (R1STM paper, Table 3)", r1stmMethods, auc.AvgRank, cd)
	if err != nil {
		t.Fatal(err)
	}
	sets := []plot.RankSet{{Metric: "AUC", AvgRank: auc.AvgRank}}
	for _, m := range []struct {
		name   string
		scores [][]float64
	}{{"training time", r1stmTrain}, {"test time", r1stmTest}} {
		f, err := stats.Friedman(m.scores, stats.LowerBetter)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, plot.RankSet{Metric: m.name, AvgRank: f.AvgRank})
	}
	b, err := plot.RankBars("Average ranks (Friedman), R1STM paper Table 3", r1stmMethods, sets)
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("PLOT_KEEP")
	if dir == "" {
		dir = t.TempDir()
	}
	h := plot.CDHeight(len(r1stmMethods))
	for _, tc := range []struct {
		name string
		h    int
		save func(string) error
	}{
		{"cd.png", int(h.Dots(96) + 0.5), func(p string) error { return plot.Save(p, plot.Width, h, d) }},
		{"ranks.png", 432, func(p string) error { return plot.Save(p, plot.Width, plot.Height, b) }},
	} {
		path := filepath.Join(dir, tc.name)
		if err := tc.save(path); err != nil {
			t.Fatal(err)
		}
		if b := pngBounds(t, path); b.Dx() != 576 || b.Dy() != tc.h {
			t.Errorf("%s: %v, want 576 × %d", tc.name, b, tc.h)
		}
	}
}

func TestCDErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		names []string
		ranks []float64
		cd    float64
		want  string
	}{
		{"one method", []string{"a"}, []float64{1}, 1, "at least 2 methods"},
		{"lengths", []string{"a", "b"}, []float64{1, 2, 1.5}, 1, "2 method names and 3 average ranks"},
		{"rank out of range", []string{"a", "b"}, []float64{0.5, 2}, 1, "not in [1, 2]"},
		{"NaN rank", []string{"a", "b"}, []float64{1, nan()}, 1, "not in [1, 2]"},
		{"zero cd", []string{"a", "b"}, []float64{1, 2}, 0, "not a positive number"},
	} {
		if _, err := plot.CDDiagram("", tc.names, tc.ranks, tc.cd); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := plot.RankBars("", []string{"a", "b"}, []plot.RankSet{{Metric: "AUC", AvgRank: []float64{1}}}); err == nil {
		t.Error("RankBars with a short rank list: no error")
	}
	if _, err := plot.RankBars("", []string{"a", "b"}, nil); err == nil {
		t.Error("RankBars with no metric: no error")
	}
}

func nan() float64 { var z float64; return z / z }

// Ten methods with long names over 14 synthetic data sets (method j's AUC
// is 0.7 + 0.02 j plus noise), to check that the layout holds at k = 10.
func TestCDPictureTen(t *testing.T) {
	names := []string{"EXPoSE", "KDE (Scott)", "kernel PCA", "kernel PCA (Nyström)", "SVDD",
		"OC-SVM", "OC-SVM (random features)", "1STM", "R1STM", "EXPoSE (SGD)"}
	src := rand.New(rand.NewPCG(7, 0))
	scores := make([][]float64, 14)
	for i := range scores {
		scores[i] = make([]float64, len(names))
		for j := range names {
			scores[i][j] = 0.7 + 0.02*float64(j) + 0.05*src.NormFloat64()
		}
	}
	f, err := stats.Friedman(scores, stats.HigherBetter)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plot.CDDiagram("10 methods, 14 data sets, α = 0.10", names, f.AvgRank, stats.CriticalDifference(f.K, f.N, 0.10))
	if err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("PLOT_KEEP")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := plot.Save(filepath.Join(dir, "cd10.png"), plot.Width, plot.CDHeight(len(names)), p); err != nil {
		t.Fatal(err)
	}
}

// A critical-difference diagram of three methods over six data sets (AUC,
// higher is better), saved as PNG at the height CDHeight suggests.
func ExampleCDDiagram() {
	auc := [][]float64{
		{0.91, 0.85, 0.80}, {0.88, 0.86, 0.79}, {0.95, 0.90, 0.91},
		{0.83, 0.84, 0.70}, {0.90, 0.82, 0.81}, {0.87, 0.80, 0.78},
	}
	res, err := stats.Friedman(auc, stats.HigherBetter)
	if err != nil {
		fmt.Println(err)
		return
	}
	cd := stats.CriticalDifference(res.K, res.N, 0.05)
	p, err := plot.CDDiagram("AUC, α = 0.05", []string{"EXPoSE", "KDE", "OC-SVM"}, res.AvgRank, cd)
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "plot")
	defer os.RemoveAll(dir)
	err = plot.Save(filepath.Join(dir, "cd.png"), plot.Width, plot.CDHeight(res.K), p)
	fmt.Printf("average ranks %.2f, CD %.2f, saved: %v\n", res.AvgRank, cd, err == nil)
	// Output: average ranks [1.17 2.00 2.83], CD 1.35, saved: true
}
