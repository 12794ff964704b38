package cli

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"math/rand/v2"
	"os"

	"github.com/kernelad/anomaly/detector"
	kit "github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/param"
	"gonum.org/v1/gonum/mat"
)

// meanDist is a test-only detector: the score of a row is its squared
// distance to the mean of the training rows. Its parameter block makes Fit
// wait for cancellation, and block_score makes Score of new rows never
// return, for the interruption tests.
type meanDist struct {
	kit.Base[*meanModel]
	block, blockScore bool
}

// meanModel is the training rows' mean.
type meanModel struct {
	mean       []float64
	blockScore bool
}

type meanDistConfig struct {
	Block, BlockScore bool
	Shape             []int
	Src               rand.Source
	kit.Common
}

func (c *meanDistConfig) Bind(s *param.Set) {
	s.Seed(&c.Src, "seed", 0, func(seed uint64) rand.Source { return rand.NewPCG(seed, 0) }, "accepted and unused")
	s.Shape(&c.Shape, "shape", false, "sample shape, checked against the feature count")
	s.Switch(&c.Block, "block", "Fit waits until cancelled")
	s.Switch(&c.BlockScore, "block_score", "Score of new rows never returns")
}

func newMeanDist(name string, c meanDistConfig) (*meanDist, error) {
	m := &meanDist{}
	b, err := kit.NewBase(name, &c, kit.Hooks[*meanModel]{Fit: m.fit, Decode: m.decode})
	m.Base, m.block, m.blockScore = b, c.Block, c.BlockScore
	return m, err
}

func init() {
	kit.Register(kit.Info{Name: "meandist", Summary: "test method: squared distance to the training mean", Version: 1},
		func(c meanDistConfig) (*meanDist, error) { return newMeanDist("meandist", c) },
		func(*meanDist, kit.Op, kit.Size) float64 { return 0 })
	kit.Register(kit.Info{Name: "meanlabeled", Summary: "test method: meandist fitted on the rows labelled normal", Version: 1},
		func(c meanDistConfig) (*meanLabeled, error) {
			d, err := newMeanDist("meanlabeled", c)
			return &meanLabeled{d}, err
		},
		func(*meanLabeled, kit.Op, kit.Size) float64 { return 0 })
}

func (m *meanDist) fit(ctx context.Context, f *kit.Fitting) (*meanModel, []float64, error) {
	if m.block {
		// The interruption test waits for this file before it signals.
		if p := os.Getenv("ANOMALY_TEST_FITTING"); p != "" {
			os.WriteFile(p, nil, 0o644)
		}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	}
	X, err := f.Matrix(ctx)
	if err != nil {
		return nil, nil, err
	}
	return m.fitRows(X, f.Report)
}

// fitRows fits the mean of the rows of X and scores them.
func (m *meanDist) fitRows(X mat.Matrix, report func(string, int, int)) (*meanModel, []float64, error) {
	r, c := X.Dims()
	mean := make([]float64, c)
	for i := 0; i < r; i++ {
		for j := range mean {
			mean[j] += X.At(i, j) / float64(r)
		}
		report("mean", i+1, r)
	}
	return &meanModel{mean: mean, blockScore: m.blockScore}, testmat.SqDists(make([]float64, r), X, mean), nil
}

func (m *meanModel) Score(_ context.Context, dst []float64, X mat.Matrix) error {
	if m.blockScore {
		// The interruption test waits for this file before it signals.
		if p := os.Getenv("ANOMALY_TEST_SCORING"); p != "" {
			os.WriteFile(p, nil, 0o644)
		}
		select {}
	}
	testmat.SqDists(dst, X, m.mean)
	return nil
}

func (m *meanModel) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(m.mean)
	return b.Bytes(), err
}

func (m *meanDist) decode(b []byte, dim int) (*meanModel, error) {
	var mean []float64
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&mean); err != nil {
		return nil, err
	}
	if len(mean) != dim {
		return nil, errors.New("meandist: bad state")
	}
	return &meanModel{mean: mean, blockScore: m.blockScore}, nil
}

// meanLabeled is meanDist with FitLabeled: it fits on the rows labelled 0.
type meanLabeled struct{ *meanDist }

func (m *meanLabeled) FitLabeled(ctx context.Context, X mat.Matrix, y []int) error {
	return m.FitLabeledWith(ctx, X, y, func(ctx context.Context, f *kit.Fitting, y []int) (*meanModel, []float64, error) {
		X, err := f.Matrix(ctx)
		if err != nil {
			return nil, nil, err
		}
		var keep []int
		for i, v := range y {
			if v == 0 {
				keep = append(keep, i)
			}
		}
		_, c := X.Dims()
		if len(keep) == 0 {
			return nil, nil, &detector.EmptyError{Rows: 0, Cols: c}
		}
		sub := mat.NewDense(len(keep), c, nil)
		for k, i := range keep {
			for j := 0; j < c; j++ {
				sub.Set(k, j, X.At(i, j))
			}
		}
		return m.fitRows(sub, f.Report)
	})
}
