package exposebeam

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/expose"
	"gonum.org/v1/gonum/mat"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/direct"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
)

func TestMain(m *testing.M) { ptest.Main(m) }

// writeShards cuts the rows of X in order into k CSV shards with a header
// row (values printed so they read back to the same float64) and returns
// the glob matching them.
func writeShards(t testing.TB, dir string, X mat.Matrix, k int) string {
	t.Helper()
	n, c := X.Dims()
	for s := 0; s < k; s++ {
		lo, hi := s*n/k, (s+1)*n/k
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("part-%03d.csv", s)))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for j := 0; j < c; j++ {
			if j > 0 {
				w.WriteByte(',')
			}
			fmt.Fprintf(w, "x%d", j)
		}
		w.WriteByte('\n')
		var buf []byte
		for i := lo; i < hi; i++ {
			buf = buf[:0]
			for j := 0; j < c; j++ {
				if j > 0 {
					buf = append(buf, ',')
				}
				buf = strconv.AppendFloat(buf, X.At(i, j), 'g', -1, 64)
			}
			buf = append(buf, '\n')
			w.Write(buf)
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return filepath.Join(dir, "part-*.csv")
}

// fitInProcess is 'anomaly fit --method expose' on X with params.
func fitInProcess(t testing.TB, X mat.Matrix, params map[string]string) *expose.EXPoSE {
	t.Helper()
	d, err := detector.New("expose", params)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	return d.(*expose.EXPoSE)
}

// loadModel reads a model file as 'anomaly score' does.
func loadModel(t testing.TB, path string) (map[string]string, *expose.EXPoSE) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := detector.Load(f)
	if err != nil {
		t.Fatal(err)
	}
	desc, _ := detector.Describe(d)
	if desc.Method != "expose" {
		t.Fatalf("model method %q, want expose", desc.Method)
	}
	return desc.Params, d.(*expose.EXPoSE)
}

// maxAbsDiff returns max_i |a_i − b_i| (+Inf when the lengths differ).
func maxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// modelDiff is the largest absolute difference between two fitted EXPoSE
// models over gamma, the frequencies, the phases and the embedding (a
// Nyström model's landmarks and Cholesky factor R instead of the
// frequencies and phases; its rank and kernel must agree) (with
// the parts in detail for logs), and the difference of their thresholds.
func modelDiff(t testing.TB, a, b *expose.EXPoSE) (model, threshold float64, detail string) {
	t.Helper()
	ms := func(d *expose.EXPoSE) MapState {
		s, err := NewMapState(d.FeatureMap())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	sa, sb := ms(a), ms(b)
	g := math.Abs(a.Gamma() - b.Gamma())
	w, ph, e := maxAbsDiff(sa.W, sb.W), maxAbsDiff(sa.B, sb.B), maxAbsDiff(a.Embedding(), b.Embedding())
	model = math.Max(math.Max(g, w), math.Max(ph, e))
	detail = fmt.Sprintf("gamma %.3g (relative %.3g), W %.3g, b %.3g, embedding %.3g", g, g/b.Gamma(), w, ph, e)
	if sa.nystrom() || sb.nystrom() {
		l, nm := maxAbsDiff(sa.Landmarks, sb.Landmarks), maxAbsDiff(sa.Factor, sb.Factor)
		if len(sa.Factor) != len(sb.Factor) || sa.Kernel != sb.Kernel {
			l = math.Inf(1)
		}
		model = math.Max(model, math.Max(l, nm))
		detail += fmt.Sprintf(", landmarks %.3g, R %.3g (largest entry %.3g)", l, nm, maxAbsDiff(sb.Factor, make([]float64, len(sb.Factor))))
	}
	return model, math.Abs(a.Threshold() - b.Threshold()), detail
}
