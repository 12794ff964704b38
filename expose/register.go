package expose

import (
	"math"
	"runtime"

	"github.com/kernelad/anomaly/detector/method"
)

// StateVersion is the version of the saved model state.
const StateVersion = 2

func init() {
	method.Register(method.Info{
		Name:    "expose",
		Summary: "EXPoSE kernel mean embedding on random features; batch or constant-time SGD (Schneider et al.)",
		Version: StateVersion,
	}, New, memory)
}

// memory estimates the peak bytes of a fit or score of s.Rows rows. The
// model: the D × d random frequencies and their transpose (randfeat makes
// it on first use), the phases, the embedding and the mean. Every worker
// maps a feature block of cacheChunk rows × D at a time (scoring, and the
// batch sum, which also holds an accumulator of D per worker; the SGD
// solver maps stepRows rows at a time, read by index). A fit also saves
// the frequencies, holds a scaled chunk of the rows it passes over, and
// holds the training rows it scores for the threshold, twice while they
// are read and scaled: for the batch solver min(n, ThresholdRows) rows
// drawn, or every row when there are at most cautionRows (more are scored
// as they stream, and a sample of cautionRows rows is read for the
// isolation caution); for the SGD solver its sample of StageRows rows.
// Sparse rows count their non-zeros, and their centring four values per
// column. A sequential source (CSV) adds the SGD solver's read of its
// steps' rows in one pass, up to three copies of sgdPassBytes; Size
// describes rows in memory, which are read by index.
//
// Measured against the peak of a fit (heap or resident set, as the shared
// suite's Memory check measures it, GOMAXPROCS 2): batch, 100,000 × 20
// rows, 7.5 MB against 7.7 MB; batch, 30,000 × 100 rows scored whole
// (threshold_rows=-1), 25.4 MB against 24.9 MB; SGD, T = 50,000 on
// 200,000 × 50 rows, 54.4 MB against 57.0 MB. Two terms make it higher
// than a fit alone: the saving (2.6 MB of the 10.9 MB estimated for a
// batch fit at D = 16384 of 20,000 × 10 rows, which held 5.9 MB), and the
// 8 bytes per row method.Memory adds for the threshold's sorted scores
// (8 MB of the 19.2 MB for an SGD fit of 10⁶ × 10 rows, which held 11.0
// MB; the fit sorts 10,000). The block was counted at ChunkRows rows,
// which at D = 10,000 put a fit of 20,000 × 20 rows, peak 29 MB, at
// 113 MB.
func memory(d *EXPoSE, op method.Op, s method.Size) float64 {
	D, cols, n := float64(d.cfg.Features), float64(s.Cols), float64(s.Rows)
	workers := float64(runtime.GOMAXPROCS(0))
	chunk := min(d.cfg.ChunkRows, max(s.Rows, 1)) // a block never holds more rows than the data
	block := float64(cacheChunk(chunk, d.cfg.Features))
	est := 2*8*D*cols + 3*8*D + workers*8*block*D
	if op == method.ScoreOp {
		return est + 8*n
	}
	row := 8 * cols // the bytes of a row, dense or (s.Sparse) its non-zeros
	if s.Sparse && s.Rows > 0 {
		row = 16*float64(s.NonZeros)/n + 8
		est += 4 * 8 * cols // centring.go's column sums, minima, counts and squares
	}
	est += method.SaveFactor * 8 * D * cols
	// every is what a fit that scores every row holds: the rows when they
	// are few, else a scaled chunk as they stream and the caution's sample.
	every := func() float64 {
		if n <= cautionRows {
			return row*n + 8*n
		}
		pass := math.Max(float64(passRows(s.Cols)), float64(max(runtime.GOMAXPROCS(0)*int(block), min(method.ChunkRows(s.Cols), (1<<22)/d.cfg.Features))))
		return row*pass + 2*row*cautionRows
	}
	if d.cfg.Solver == SGD {
		c := float64(min(d.cfg.ChunkRows, d.cfg.Iterations, max(runtime.GOMAXPROCS(0)*int(block), (1<<20)/d.cfg.Features))) // stepRows
		est += 8*c*D + 2*row*c
		if k, _ := d.stageSample(); k > 0 && float64(k) < n {
			return est + 2*row*float64(k) + 8*float64(k)
		}
		return est + every()
	}
	est += workers * 8 * D // the sum's accumulators (its blocks are Score's)
	if lim := float64(d.thresholdCap()); n > lim {
		return est + row*float64(passRows(s.Cols)) + 2*row*lim + 8*lim
	}
	return est + every()
}

// ConfigFromParams returns the Config the registry builds from params (the
// map 'anomaly fit --set k=v' gives), with the registry's checks, unknown
// keys included.
func ConfigFromParams(params map[string]string) (Config, error) {
	return method.ParseConfig[Config]("expose", params)
}
