package plot_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/plot"
	"gonum.org/v1/gonum/mat"
)

// ROC curves of two rankings of six rows (three anomalies), saved as PNG.
func ExampleROC() {
	labels := []int{0, 0, 1, 0, 1, 1}
	p, err := plot.ROC("two rankings", []plot.Scores{
		{Name: "perfect", Scores: []float64{1, 2, 5, 3, 6, 7}, Labels: labels},
		{Name: "reversed", Scores: []float64{7, 6, 2, 5, 1, 0}, Labels: labels},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, _ := os.MkdirTemp("", "plot")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "roc.png")
	if err := plot.Save(path, plot.Width, plot.Height, p); err != nil {
		fmt.Println(err)
		return
	}
	st, err := os.Stat(path)
	fmt.Println(p.Title.Text, err == nil && st.Size() > 0)
	// Output: two rankings true
}

// centre is a tiny detector for the score map test: squared distance to
// the origin.
type centre struct{}

func (centre) Fit(context.Context, mat.Matrix) error { return nil }
func (centre) Threshold() float64                    { return 0 }
func (centre) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	r, _ := X.Dims()
	dst = method.ScoreDst(dst, r)
	for i := range dst {
		dst[i] = X.At(i, 0)*X.At(i, 0) + X.At(i, 1)*X.At(i, 1)
	}
	return dst, nil
}

// A score map and a two-panel convergence picture decode as PNG images of
// the requested size (6 × 4.5 in at gonum's 96 dpi: 576 × 432 pixels per
// panel).
func TestSavePNG(t *testing.T) {
	ds := dataset.Banana(200, 0.05, rand.NewPCG(1, 0))
	m, err := plot.ScoreMap("centre", centre{}.Score, ds.X, ds.Y, 40)
	if err != nil {
		t.Fatal(err)
	}
	top, bottom, err := plot.Convergence("c", []float64{1, 2, 3}, []float64{1, 0.5, 0.3}, []float64{0.8, 0.9, 0.95}, 0.96)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		ps   int
	}{{"map.png", 1}, {"conv.png", 2}} {
		path := filepath.Join(dir, tc.name)
		var err error
		if tc.ps == 1 {
			err = plot.Save(path, plot.Width, plot.Height, m)
		} else {
			err = plot.Save(path, plot.Width, plot.Height, top, bottom)
		}
		if err != nil {
			t.Fatal(err)
		}
		if b := pngBounds(t, path); b.Dx() != 576 || b.Dy() != 432*tc.ps {
			t.Errorf("%s: %v", tc.name, b)
		}
	}
	if _, err := plot.ScoreMap("", centre{}.Score, mat.NewDense(2, 3, nil), nil, 10); err == nil {
		t.Error("3-D points: no error")
	}
	if _, _, err := plot.Convergence("", []float64{1}, []float64{0}, []float64{1}, 1); err == nil {
		t.Error("zero distance on a log scale: no error")
	}
}

// pngBounds decodes the PNG file at path and returns its bounds, failing t
// when the file does not decode.
func pngBounds(t *testing.T, path string) image.Rectangle {
	t.Helper()
	img, err := png.Decode(testmat.ReadFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	return img.Bounds()
}
