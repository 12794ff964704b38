package all_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/detectortest"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/csr"
)

// TestSparseTable prints, for every registered method at its defaults,
// the table of issue 31's item 4: the peak memory of a fit and a score of
// a 400 × 50,000 CSR matrix beside the method's estimate
// (method.Memory), and the largest difference between the scores of the
// CSR matrix and of its dense copy. It runs two densities: 8,000
// non-zeros in all (20 a row) and 8,000 a row. The peaks are measured as
// the conformance suite's Memory check measures them
// (detectortest.HeapPeak). Minutes of work and 2 GB at its peak, so it
// runs only with ANOMALY_SPARSE_TABLE=1 (make sparse-table), without
// -race; ANOMALY_SPARSE_TABLE=gauss,kde runs those methods only.
func TestSparseTable(t *testing.T) {
	if os.Getenv("ANOMALY_SPARSE_TABLE") == "" {
		t.Skip("prints the sparse-input memory table; run with ANOMALY_SPARSE_TABLE=1 (make sparse-table)")
	}
	const n, d = 400, 50000
	mb := func(b int64) float64 { return float64(b) / 1e6 }
	type variant struct {
		name   string
		params map[string]string
	}
	var vs []variant
	only := map[string]bool{} // ANOMALY_SPARSE_TABLE=gauss,kde: those methods only
	if v := os.Getenv("ANOMALY_SPARSE_TABLE"); v != "1" {
		for _, m := range strings.Split(v, ",") {
			only[m] = true
		}
	}
	for _, name := range detector.Names() {
		if len(only) > 0 && !only[name] {
			continue
		}
		vs = append(vs, variant{name, nil})
		if name == "kpca" {
			vs = append(vs, variant{name, map[string]string{"method": "nystrom"}})
		}
	}
	opts := detector.Options{Shape: []int{50, 1000}}
	for _, perRow := range []int{20, 8000} {
		S := csr.Random(n, d, perRow, 11)
		D := mat.DenseCopyOf(S)
		fmt.Printf("\n400 × 50,000 CSR, %d non-zeros (%d a row)\n\n", n*perRow, perRow)
		fmt.Println("| method | fit peak MB | fit estimate MB | load + score peak MB | score estimate + model MB | max |CSR − dense| score |")
		fmt.Println("|---|---|---|---|---|---|")
		for _, v := range vs {
			label := v.name
			for k, val := range v.params {
				label += " " + k + "=" + val
			}
			row := func() (string, error) {
				ds, err := detector.New(v.name, v.params, opts)
				if err != nil {
					return "", err
				}
				size := method.SizeOf(S)
				fe, err := method.Memory(ds, method.FitOp, size)
				if err != nil {
					return "", err
				}
				// A fit as the command line runs it: Fit, then Save.
				fp := detectortest.HeapPeak(func() {
					if err = ds.Fit(context.Background(), S); err == nil {
						err = detector.Save(io.Discard, ds)
					}
				})
				if err != nil {
					return "", err
				}
				se, err := method.Memory(ds, method.ScoreOp, size)
				if err != nil {
					return "", err
				}
				// A score as 'anomaly score' runs it: Load, then Score; its
				// budget check counts the estimate and the model file's
				// bytes (held here before the measurement, as a read
				// file's pages are).
				var model bytes.Buffer
				if err := detector.Save(&model, ds); err != nil {
					return "", err
				}
				se += int64(model.Len())
				var ss []float64
				sp := detectortest.HeapPeak(func() {
					var dl detector.Detector
					if dl, err = detector.Load(bytes.NewReader(model.Bytes())); err == nil {
						ss, err = dl.Score(nil, S)
					}
				})
				if err != nil {
					return "", err
				}
				dd, err := detector.New(v.name, v.params, opts)
				if err != nil {
					return "", err
				}
				if err := dd.Fit(context.Background(), D); err != nil {
					return "", err
				}
				sd, err := dd.Score(nil, D)
				if err != nil {
					return "", err
				}
				var diff float64
				for i := range ss {
					diff = math.Max(diff, math.Abs(ss[i]-sd[i]))
				}
				return fmt.Sprintf("%.1f | %.1f | %.1f | %.1f | %.2g", mb(fp), mb(fe), mb(sp), mb(se), diff), nil
			}
			s, err := row()
			if err != nil {
				s = "error: " + err.Error()
			}
			fmt.Printf("| %s | %s |\n", label, s)
		}
	}
}
