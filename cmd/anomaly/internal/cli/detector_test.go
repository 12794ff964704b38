package cli

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"math/rand/v2"
	"os"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/param"
	"gonum.org/v1/gonum/mat"
)

// meanDist is a test-only detector: the score of a row is its squared
// distance to the mean of the training rows. Its parameter block makes Fit
// wait for cancellation, and block_score makes Score of new rows never
// return, for the interruption tests.
type meanDist struct {
	detector.Base
	block, blockScore bool
	mean              []float64
}

type meanDistConfig struct {
	Block, BlockScore bool
	Shape             []int
	Src               rand.Source
	detector.Common
}

func (c *meanDistConfig) Bind(s *param.Set) {
	s.Seed(&c.Src, "seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, 0) }, "accepted and unused")
	s.Shape(&c.Shape, "shape", false, "sample shape, checked against the feature count")
	s.Switch(&c.Block, "block", "Fit waits until cancelled")
	s.Switch(&c.BlockScore, "block_score", "Score of new rows never returns")
}

func newMeanDist(name string, c meanDistConfig) (*meanDist, error) {
	b, err := detector.NewBase(name, &c)
	return &meanDist{Base: b, block: c.Block, blockScore: c.BlockScore}, err
}

func init() {
	detector.RegisterLegacy(detector.Info{Name: "meandist", Summary: "test method: squared distance to the training mean", Version: 1},
		func(c meanDistConfig) (*meanDist, error) { return newMeanDist("meandist", c) },
		func(*meanDist, detector.Op, detector.Size) float64 { return 0 })
	detector.RegisterLegacy(detector.Info{Name: "meanlabeled", Summary: "test method: meandist fitted on the rows labelled normal", Version: 1},
		func(c meanDistConfig) (*meanLabeled, error) {
			d, err := newMeanDist("meanlabeled", c)
			return &meanLabeled{d}, err
		},
		func(*meanLabeled, detector.Op, detector.Size) float64 { return 0 })
}

func (m *meanDist) Fit(ctx context.Context, X mat.Matrix) error {
	return m.FitWith(ctx, X, m.fit)
}

func (m *meanDist) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	if m.block {
		// The interruption test waits for this file before it signals.
		if p := os.Getenv("ANOMALY_TEST_FITTING"); p != "" {
			os.WriteFile(p, nil, 0o644)
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	r, c := X.Dims()
	mean := make([]float64, c)
	for i := 0; i < r; i++ {
		for j := range mean {
			mean[j] += X.At(i, j) / float64(r)
		}
		m.Report("mean", i+1, r)
	}
	m.mean = mean
	return m.score(nil, X)
}

func (m *meanDist) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if m.blockScore {
		// The interruption test waits for this file before it signals.
		if p := os.Getenv("ANOMALY_TEST_SCORING"); p != "" {
			os.WriteFile(p, nil, 0o644)
		}
		select {}
	}
	return m.ScoreWith(dst, X, m.score)
}

func (m *meanDist) score(dst []float64, X mat.Matrix) ([]float64, error) {
	r, _ := X.Dims()
	return testmat.SqDists(detector.ScoreDst(dst, r), X, m.mean), nil
}

func (m *meanDist) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(m.mean)
	return b.Bytes(), err
}

func (m *meanDist) UnmarshalBinary(b []byte) error {
	var mean []float64
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&mean); err != nil {
		return err
	}
	if len(mean) == 0 {
		return errors.New("meandist: empty state")
	}
	m.mean = mean
	return nil
}

// meanLabeled is meanDist with FitLabeled: it fits on the rows labelled 0.
type meanLabeled struct{ *meanDist }

func (m *meanLabeled) FitLabeled(ctx context.Context, X mat.Matrix, y []int) error {
	return m.FitLabeledWith(ctx, X, y, func(ctx context.Context, X mat.Matrix, y []int) ([]float64, error) {
		var keep []int
		for i, v := range y {
			if v == 0 {
				keep = append(keep, i)
			}
		}
		_, c := X.Dims()
		if len(keep) == 0 {
			return nil, &detector.EmptyError{Rows: 0, Cols: c}
		}
		sub := mat.NewDense(len(keep), c, nil)
		for k, i := range keep {
			for j := 0; j < c; j++ {
				sub.Set(k, j, X.At(i, j))
			}
		}
		return m.fit(ctx, sub)
	})
}
