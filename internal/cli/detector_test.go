package cli

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"math"

	"github.com/kernelad/anomaly/detector"
	"gonum.org/v1/gonum/mat"
)

// meanDist is a test-only detector: the score of a row is its squared
// distance to the mean of the training rows. Its parameter block makes Fit
// wait for cancellation, for the interruption tests.
type meanDist struct {
	contamination float64
	block         bool
	progress      detector.ProgressFunc
	state         meanState
}

type meanState struct {
	Mean      []float64
	Threshold float64
}

func init() {
	params := []detector.Param{
		{Name: "contamination", Default: "0.1", Help: "expected anomaly share, in (0, 0.5]"},
		{Name: "seed", Default: "0", Help: "accepted and unused"},
		{Name: "shape", Default: "", Help: "sample shape, checked against the feature count"},
		{Name: "block", Default: "false", Help: "Fit waits until cancelled"},
	}
	build := func(p *detector.Params) (*meanDist, error) {
		c := p.Float("contamination", 0.1)
		p.Check(c > 0 && c <= 0.5, "contamination", "must be in (0, 0.5]")
		p.Uint64("seed", 0)
		p.Ints("shape", nil)
		block := p.Bool("block", false)
		if err := p.Err(); err != nil {
			return nil, err
		}
		return &meanDist{contamination: c, block: block}, nil
	}
	detector.Register(detector.Method{
		Name: "meandist", Summary: "test method: squared distance to the training mean", Version: 1, Params: params,
		New: func(p *detector.Params) (detector.Detector, error) { return build(p) },
	})
	detector.Register(detector.Method{
		Name: "meanlabeled", Summary: "test method: meandist fitted on the rows labelled normal", Version: 1, Params: params,
		New: func(p *detector.Params) (detector.Detector, error) {
			d, err := build(p)
			return &meanLabeled{d}, err
		},
	})
}

func (m *meanDist) SetProgress(f detector.ProgressFunc) { m.progress = f }

func (m *meanDist) Fit(ctx context.Context, X mat.Matrix) error {
	if err := detector.CheckMatrix(X, 0); err != nil {
		return err
	}
	if m.block {
		<-ctx.Done()
		return ctx.Err()
	}
	r, c := X.Dims()
	mean := make([]float64, c)
	for i := 0; i < r; i++ {
		for j := range mean {
			mean[j] += X.At(i, j) / float64(r)
		}
		if m.progress != nil {
			m.progress("mean", i+1, r)
		}
	}
	m.state.Mean = mean
	scores, _ := m.Score(nil, X)
	m.state.Threshold = detector.ThresholdFromScores(scores, m.contamination)
	return nil
}

func (m *meanDist) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	if m.state.Mean == nil {
		return nil, detector.ErrNotFitted
	}
	if err := detector.CheckMatrix(X, len(m.state.Mean)); err != nil {
		return nil, err
	}
	r, _ := X.Dims()
	dst = detector.ScoreDst(dst, r)
	for i := range dst {
		var s float64
		for j, mu := range m.state.Mean {
			d := X.At(i, j) - mu
			s += d * d
		}
		dst[i] = s
	}
	return dst, nil
}

func (m *meanDist) Threshold() float64 { return m.state.Threshold }

func (m *meanDist) MarshalBinary() ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(m.state)
	return b.Bytes(), err
}

func (m *meanDist) UnmarshalBinary(b []byte) error {
	var s meanState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return err
	}
	if len(s.Mean) == 0 || math.IsNaN(s.Threshold) {
		return errors.New("meandist: empty state")
	}
	m.state = s
	return nil
}

// meanLabeled is meanDist with FitLabeled: it fits on the rows labelled 0.
type meanLabeled struct{ *meanDist }

func (m *meanLabeled) FitLabeled(ctx context.Context, X mat.Matrix, y []int) error {
	var keep []int
	for i, v := range y {
		if v == 0 {
			keep = append(keep, i)
		}
	}
	_, c := X.Dims()
	sub := mat.NewDense(max(len(keep), 1), c, nil)
	if len(keep) == 0 {
		return &detector.EmptyError{Rows: 0, Cols: c}
	}
	for k, i := range keep {
		for j := 0; j < c; j++ {
			sub.Set(k, j, X.At(i, j))
		}
	}
	return m.meanDist.Fit(ctx, sub)
}
