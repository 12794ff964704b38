package expose

import (
	"math"
	"runtime"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
)

// StateVersion is the version of the saved model state.
const StateVersion = 2

func init() {
	method.Register(detector.Info{
		Name:    "expose",
		Summary: "EXPoSE kernel mean embedding on random features; batch or constant-time SGD (Schneider et al.)",
		Version: StateVersion,
	}, New, memory)
}

// memory estimates the peak bytes of a fit or score of s.Rows rows. The
// model: the D × d random frequencies and their transpose (randfeat makes
// it on first use), the phases, the embedding and the mean. Every worker
// maps a feature block of cacheChunk rows × D at a time (scoring, the
// batch sum, which also holds an accumulator of D per worker). A fit also
// holds a scaled chunk of the rows it passes over (the width rule's
// passes read detector.ChunkRows rows at a time), saves the frequencies,
// and holds the training rows it scores for the threshold twice while
// they are read and scaled (their scores beside them): for the batch
// solver min(n, ThresholdRows) rows; for the SGD solver its sample of
// min(n, StageRows) rows, and the rows of its steps, a feature block at a
// time by index, or from a source read in passes up to sgdPassBytes of
// rows in three copies (gathered, assembled, scaled). The block was
// counted at ChunkRows rows, which at D = 10,000 put a fit of 20,000 × 20
// rows, peak 29 MB, at 113 MB.
func memory(d *EXPoSE, op detector.Op, s detector.Size) float64 {
	D, cols, n := float64(d.cfg.Features), float64(s.Cols), float64(s.Rows)
	workers := float64(runtime.GOMAXPROCS(0))
	chunk := min(d.cfg.ChunkRows, max(s.Rows, 1)) // a block never holds more rows than the data
	block := float64(cacheChunk(chunk, d.cfg.Features))
	est := 2*8*D*cols + 3*8*D + workers*8*block*D
	if op == detector.ScoreOp {
		return est + 8*n
	}
	row := 8 * cols // the bytes of a row, dense or (s.Sparse) its non-zeros
	if s.Sparse && s.Rows > 0 {
		row = 16*float64(s.NonZeros)/n + 8
	}
	est += workers*8*D + method.SaveFactor*8*D*cols
	est += row * math.Min(n, float64(detector.ChunkRows(s.Cols)))
	held := math.Min(n, float64(d.thresholdCap()))
	if d.cfg.Solver == SGD {
		k, _ := d.stageSample()
		held = n
		if k > 0 {
			held = math.Min(n, float64(k))
		}
		T := float64(d.cfg.Iterations)
		c := math.Min(float64(d.cfg.ChunkRows), T)
		read := math.Min(T, math.Max(c, float64(sgdPassBytes)/(8*cols)))
		est += 3*row*read + 8*c*D
	}
	return est + 2*row*held + 8*held
}

// ConfigFromParams returns the Config the registry builds from params (the
// map 'anomaly fit --set k=v' gives), with the registry's checks, unknown
// keys included.
func ConfigFromParams(params map[string]string) (Config, error) {
	return method.ParseConfig[Config]("expose", params)
}
