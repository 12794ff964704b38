package expose

import (
	"math"
	"runtime"

	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/randfeat"
)

// StateVersion is the version of the saved model state: 3 since the
// Nyström map saves its Cholesky factor (issue 35), not K_mm^{-1/2}.
const StateVersion = 3

func init() {
	method.Register(method.Info{
		Name:    "expose",
		Summary: "EXPoSE kernel mean embedding on random or Nyström features; batch or constant-time SGD (Schneider et al.)",
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
//
// The Nyström map (map=nystrom) counts its own model and scratch instead
// (nystromMemory); the rows a fit holds are the same.
func memory(d *EXPoSE, op method.Op, s method.Size) float64 {
	if d.cfg.Map == Nystrom {
		return nystromMemory(d, op, s)
	}
	D, cols, n := float64(d.cfg.Features), float64(s.Cols), float64(s.Rows)
	workers := float64(runtime.GOMAXPROCS(0))
	chunk := min(d.cfg.ChunkRows, max(s.Rows, 1)) // a block never holds more rows than the data
	block := float64(cacheChunk(chunk, d.cfg.Features))
	est := 2*8*D*cols + 3*8*D + workers*8*block*D
	if op == method.ScoreOp {
		// The model is loaded before a score: of the map's two copies
		// (W and Wᵀ) a front end counts the one the model file holds,
		// and this estimate the other.
		return est - 8*D*cols + 8*n
	}
	row := 8 * cols // the bytes of a row, dense or (s.Sparse) its non-zeros
	if s.Sparse && s.Rows > 0 {
		row = 16*float64(s.NonZeros)/n + 8
		est += 4 * 8 * cols // centring.go's column sums, minima, counts and squares
	}
	est += method.SaveFactor * 8 * D * cols
	// the chunk of a pass that scores every row (scanRows)
	pass := math.Max(float64(passRows(s.Cols)), float64(max(runtime.GOMAXPROCS(0)*int(block), min(method.ChunkRows(s.Cols), (1<<22)/d.cfg.Features))))
	if d.cfg.Solver == SGD {
		c := float64(min(d.cfg.ChunkRows, d.cfg.Iterations, max(runtime.GOMAXPROCS(0)*int(block), (1<<20)/d.cfg.Features))) // stepRows
		est += 8*c*D + 2*row*c
	} else {
		est += workers * 8 * D // the sum's accumulators (its blocks are Score's)
	}
	return est + fitRows(d, s, row, pass)
}

// fitRows is the bytes of the training rows a fit holds beside its model,
// row bytes each (memory's terms): the SGD solver's sample (or, without
// one, what a fit that scores every row holds), the batch solver's
// threshold rows and a scaled chunk of the pass over them, or every row
// when there are at most cautionRows, else a chunk of pass rows as they
// stream and the isolation caution's sample.
func fitRows(d *EXPoSE, s method.Size, row, pass float64) float64 {
	n := float64(s.Rows)
	every := func() float64 {
		if n <= cautionRows {
			return row*n + 8*n
		}
		return row*pass + 2*row*cautionRows
	}
	if d.cfg.Solver == SGD {
		if k, _ := d.stageSample(); k > 0 && float64(k) < n {
			return 2*row*float64(k) + 8*float64(k)
		}
		return every()
	}
	if lim := float64(d.thresholdCap()); n > lim {
		return row*float64(passRows(s.Cols)) + 2*row*lim + 8*lim
	}
	return every()
}

// nystromMemory is memory for map=nystrom, with m landmarks (Landmarks,
// capped at the rows a fit draws them from; a score counts Landmarks).
// The model: the landmarks (dense, m × d), the Cholesky factor R (m × m), the
// embedding, the mean and α. Scoring and the batch sum hold the kernel
// values of nyRows rows against the landmarks and kernel.Cross's copies
// (the block's rows and the landmarks centred, the landmarks transposed
// from 1,024 of them on). The construction of the map
// (randfeat.NystromCholeskyBytes, the landmarks read and scaled beside it) comes
// before the model's sum, the saving after it: the larger counts. The
// SGD solver maps stepRows rows at a time (the features and their kernel
// values, m each).
func nystromMemory(d *EXPoSE, op method.Op, s method.Size) float64 {
	mi := d.cfg.Landmarks
	if op != method.ScoreOp {
		mi = min(mi, max(s.Rows, 1))
		if k, _ := d.stageSample(); k > 0 {
			mi = min(mi, k)
		}
	}
	if op == method.ScoreOp {
		if md, ok := d.Model(); ok && md.ny != nil {
			mi = md.ny.Dim() // the landmarks the fit kept
		}
	}
	m, cols, n := float64(mi), float64(s.Cols), float64(s.Rows)
	R := float64(max(16, min(1024, (1<<18)/mi))) // nyRows
	mdl := 8*m*cols + 8*m*m + 3*8*m
	// The kernel rows of a block, the landmarks prepared for kernel.Cross
	// (centred, transposed) and, for dense rows, the block's centred copy
	// (sparse rows are read in place).
	scratch := 8*R*m + 2*8*m*cols
	if !s.Sparse {
		scratch += 8 * math.Min(R, math.Max(n, 1)) * cols
	}
	if op == method.ScoreOp {
		// The model is loaded before a score: a front end counts the
		// model file's bytes (the landmarks and R), this estimate what
		// Load and Score add (400 × 50,000 sparse rows at 400 landmarks:
		// Load + Score 484 MB beside a 160 MB model file).
		return scratch + 8*n
	}
	row := 8 * cols
	if s.Sparse && s.Rows > 0 {
		row = 16*float64(s.NonZeros)/n + 8
		scratch += 4 * 8 * cols // centring.go's column sums, minima, counts and squares
	}
	build := float64(randfeat.NystromCholeskyBytes(mi, s.Cols)) + 2*row*m + 8*m*cols
	// Save writes the model's own arrays (1× the model: 162 MB for the
	// 160 MB model above).
	est := math.Max(build, mdl+scratch+8*(m*cols+m*m))
	if d.cfg.Solver == SGD {
		c := float64(min(d.cfg.ChunkRows, d.cfg.Iterations, max(runtime.GOMAXPROCS(0)*cacheChunk(d.cfg.ChunkRows, mi), (1<<20)/mi))) // stepRows
		est += 2*8*c*m + 2*row*c
	}
	pass := float64(max(passRows(s.Cols), min(method.ChunkRows(s.Cols), (1<<22)/mi))) // scanRows
	return est + fitRows(d, s, row, pass)
}

// ConfigFromParams returns the Config the registry builds from params (the
// map 'anomaly fit --set k=v' gives), with the registry's checks, unknown
// keys included.
func ConfigFromParams(params map[string]string) (Config, error) {
	return method.ParseConfig[Config]("expose", params)
}
