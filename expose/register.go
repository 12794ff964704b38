package expose

import (
	"runtime"

	"github.com/kernelad/anomaly/detector"
)

// StateVersion is the version of the saved model state.
const StateVersion = 2

func init() {
	detector.RegisterLegacy(detector.Info{
		Name:    "expose",
		Summary: "EXPoSE kernel mean embedding on random features; batch or constant-time SGD (Schneider et al.)",
		Version: StateVersion,
	}, New, memory)
}

// memory estimates the peak bytes of a fit or score: the D × d random
// frequencies and their transpose (randfeat makes it on first use); per
// worker, one feature block of cacheChunk rows × D (what the batch pass
// and scoring map at a time, a few rows at large D) and an accumulator of
// D; for the SGD solver also its own chunk × D feature block and the
// chunk's gathered rows; the embedding; and (fit) the threshold rows' copy
// and the saving of the frequencies. The block was counted at ChunkRows
// rows, which at D = 10,000 put a fit of 20,000 × 20 rows, peak 29 MB, at
// 113 MB.
func memory(d *EXPoSE, op detector.Op, s detector.Size) float64 {
	D := float64(d.cfg.Features)
	cols := float64(s.Cols)
	workers := float64(runtime.GOMAXPROCS(0))
	chunk := min(d.cfg.ChunkRows, max(s.Rows, 1)) // a block never holds more rows than the data
	block := float64(cacheChunk(chunk, d.cfg.Features))
	est := 2*8*D*cols + 8*D + workers*8*(block*D+D)
	if op == detector.FitOp {
		if d.cfg.Solver == SGD {
			c := float64(min(chunk, max(d.cfg.Iterations, 1)))
			est += 8*c*D + 8*c*cols + 8*c
		}
		rows := float64(min(s.Rows, d.thresholdCap()))
		est += 8*rows*cols + 8*rows
		est += detector.SaveFactor * 8 * D * cols // saving the frequencies
	} else {
		est += 8 * float64(s.Rows)
	}
	return est
}

// ConfigFromParams returns the Config the registry builds from params (the
// map 'anomaly fit --set k=v' gives), with the registry's checks, unknown
// keys included.
func ConfigFromParams(params map[string]string) (Config, error) {
	return detector.ParseConfig[Config]("expose", params)
}
