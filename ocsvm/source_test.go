package ocsvm

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
)

// chunkSource is a matrix read as a detector.Source, in chunks of at most
// 7 rows whatever the reader asks, as a file read in pieces.
type chunkSource struct{ X mat.Matrix }

func (s chunkSource) Dims() (int, int) { return s.X.Dims() }

func (s chunkSource) Sparse() bool {
	_, ok := s.X.(*sparse.CSR)
	return ok
}

func (s chunkSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	n, _ := s.X.Dims()
	for lo := 0; lo < n; lo += min(max, 7) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(lo, csr.Rows(s.X, lo, min(n, lo+min(max, 7)))); err != nil {
			return err
		}
	}
	return nil
}

// A fit from a Source read in chunks gives the model of Fit on the same
// rows in one matrix: the same threshold, width and scores, bit for bit,
// for dense and sparse rows, with and without the scale stage; and
// scoring the source chunk by chunk (detector.ScoreSource, 7 rows at a
// time) gives Score's values on the whole matrix, bit for bit.
func TestFitSourceEqualsFit(t *testing.T) {
	X := randX(120, 5, 21)
	S := testmat.CSR(positive(X))
	for _, tc := range []struct {
		X     mat.Matrix
		scale string
	}{{X, "standard"}, {X, "none"}, {S, "standard"}, {S, "none"}} {
		t.Run(fmt.Sprintf("%T/%s", tc.X, tc.scale), func(t *testing.T) {
			params := map[string]string{"scale": tc.scale, "nu": "0.3"}
			a, _ := detector.New("ocsvm", params)
			b, _ := detector.New("ocsvm", params)
			if err := a.Fit(context.Background(), tc.X); err != nil {
				t.Fatal(err)
			}
			if err := detector.FitSource(context.Background(), b, chunkSource{tc.X}); err != nil {
				t.Fatal(err)
			}
			sa, _ := a.Score(nil, tc.X)
			sb, _ := b.Score(nil, tc.X)
			if !slices.Equal(sa, sb) || math.Float64bits(a.Threshold()) != math.Float64bits(b.Threshold()) {
				t.Errorf("scores or threshold differ: threshold %v from the matrix, %v from the source", a.Threshold(), b.Threshold())
			}
			if ga, gb := a.(*OCSVM).Stats().Gamma, b.(*OCSVM).Stats().Gamma; ga != gb {
				t.Errorf("γ %v from the matrix, %v from the source", ga, gb)
			}
			var streamed []float64
			err := detector.ScoreSource(context.Background(), a, chunkSource{tc.X}, func(_ int, s []float64) error {
				streamed = append(streamed, s...)
				return nil
			})
			if err != nil || !slices.Equal(streamed, sa) {
				t.Errorf("scores of the source a chunk at a time differ from Score's (%v)", err)
			}
		})
	}
}
