package stm

import (
	"runtime"

	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/scale"
	"github.com/kernelad/anomaly/smo"
)

// TensorScale is the scale stage's default of 1STM and R1STM: min-max per
// entry, fitted on the training rows. make defaults compared none,
// per-entry standard and robust scaling, per-channel standardisation
// (scale=channel) and per-entry min-max under the class protocol on the 4
// tensor sets (mean AUC, 1stm: 0.774, 0.708, 0.724, 0.753, 0.774; r1stm:
// 0.776, 0.690, 0.725, 0.729, 0.776). The protocol itself min-maxes every
// entry on the training part, so a min-max stage changes nothing there and
// ties with none; on the same sets in their own units (bench --protocol
// raw) none falls to 0.749 (1stm) and 0.750 (r1stm) while min-max keeps
// 0.774 and 0.776. Standardising does worse than either: it weighs every
// entry alike, where min-max keeps the entries' bounded ranges.
const TensorScale = scale.MinMaxRule

func init() {
	method.Register(method.Info{
		Name:    "1stm",
		Summary: "one-class support tensor machine: CP factors, the kernel of eq. 4.18, the OC-SVM dual through smo; score ρ − Σα_i K(X_i, X)",
		Version: 2,
		Scale:   TensorScale,
	}, NewOneSTM, memoryOneSTM)
	method.Register(method.Info{
		Name:    "r1stm",
		Summary: "randomised one-class support tensor machine: random Fourier features of the CP components, linear one-class machine; score ρ − ⟨w, z(X)⟩",
		Version: 2,
		Scale:   TensorScale,
	}, NewR1STM, memoryR1STM)
	method.Register(method.Info{
		Name:    "r1svm",
		Summary: "randomised one-class SVM: random Fourier features of the rows, linear one-class machine (the R1SVM baseline)",
		Version: 2,
	}, NewR1SVM, memoryR1SVM)
}

// The memory estimates are float64 arithmetic, so that no product of
// sizes and parameters wraps round (method.Register).

// saveFactor is the peak bytes of saving a fitted model in multiples of
// its arrays, which a fit's estimate adds (the command line saves every
// model it fits): the encoded state alone, as the models' MarshalBinary
// hand over their own arrays (method.SaveFactor, 2, is the bound over
// every method; it measured 1.0× for r1svm). With 2 the estimate of an
// r1svm fit of 400 × 50,000 rows was 1.63× its peak (1,763 MB against
// 1,080), with 1 it is 1.26×.
const saveFactor = 1

// workers is the number of goroutines the parallel steps run.
func workers() float64 { return float64(runtime.GOMAXPROCS(0)) }

// fitChunkMemory is what a fit's pass over the rows of size s holds a
// chunk of c rows at a time: the scaled chunk and, for sparse input
// (densified, Hooks.Densify), its dense copy.
func fitChunkMemory(c float64, s method.Size) float64 {
	if s.Sparse {
		return 2 * 8 * c * float64(s.Cols)
	}
	return 8 * c * float64(s.Cols)
}

// stageChunkMemory is what Base holds fitting the scale stage of rule on
// sparse input, which the methods densify (Hooks.Densify): a densified
// chunk of method.ChunkRows rows, at least 256 (102 MB for 50,000
// columns); on dense rows in memory, or under rule none, nothing. It is freed before
// the method reads the rows, but a fit's peak was seen to hold it beside
// them (121 MB for a tensor fit of 400 × 50,000 sparse rows whose own
// chunk and component vectors are 20 MB).
func stageChunkMemory(s method.Size, rule string) float64 {
	if s.Sparse && rule != scale.None {
		return 8 * scoreRows(s) * float64(s.Cols)
	}
	return 0
}

// scoreChunkMemory is what Base's Score holds of a chunk beyond what
// method.Memory adds for it (a chunk of the input as it is): for
// sparse input, densified (Hooks.Densify) and then scaled, two dense
// copies of the chunk's rows.
func scoreChunkMemory(s method.Size) float64 {
	if s.Sparse {
		return 2 * 8 * scoreRows(s) * float64(s.Cols)
	}
	return 0
}

// cpMemory is the factorisation of the rows of size s a chunk of c rows
// at a time, beside the chunk itself: the component vectors kept (those
// of n rows for a fit, of a chunk for Score), and the Kruskal tensors of
// a batch of at most cpBatch of the chunk's rows and each worker's
// unfoldings and Gram matrices.
func cpMemory(r resolved, s method.Size, keep, c float64) float64 {
	R, d, dim := float64(r.rank), float64(s.Cols), float64(r.dim)
	return 8*keep*R*dim + min(c, cpBatch)*float64(cpd.KruskalBytes(r.shape, r.rank)) + workers()*8*(3*d+4*R*dim)
}

// cpFitMemory is cpMemory of a fit, with its chunk and the scale stage's
// (rule).
func cpFitMemory(r resolved, s method.Size, rule string) float64 {
	c := min(float64(s.Rows), float64(fitChunk(s.Cols)))
	return cpMemory(r, s, float64(s.Rows), c) + fitChunkMemory(c, s) + stageChunkMemory(s, rule)
}

// cpScoreMemory is cpMemory of a Score, with Base's chunk.
func cpScoreMemory(r resolved, s method.Size) float64 {
	return cpMemory(r, s, scoreRows(s), scoreRows(s)) + scoreChunkMemory(s)
}

// scoreRows is the number of rows Score sees at a time: Base scales a
// chunk at a time.
func scoreRows(s method.Size) float64 {
	return min(float64(s.Rows), float64(method.ChunkRows(s.Cols)))
}

// memoryOneSTM: the component vectors (never the rows: they are
// factorised a chunk at a time), the solver's copy of them (grown by
// appending, up to twice their size, and for rank 1 transposed too), its
// column cache (bounded by cache_mb and by the whole n × n matrix in
// float32) and per-sample arrays, and the support components kept and
// saved (at most all). Scoring: a chunk's component vectors and the
// kernel values of a block of them against the support components.
func memoryOneSTM(m *OneSTM, op method.Op, s method.Size) float64 {
	n, R, dim := float64(s.Rows), float64(m.r.rank), float64(m.r.dim)
	if op == method.ScoreOp {
		sv := 0
		if mod, ok := m.Model(); ok {
			sv = mod.exp.Len()
		}
		block := min(float64(evalWork/max(sv*m.r.rank, 1)), scoreRows(s)) * R
		return 8*n + cpScoreMemory(m.r, s) + float64(smo.EvalBytes(int(block), m.r.dim, sv, false))
	}
	comps := 8 * n * R * dim
	copies := 2.0
	if m.r.rank == 1 {
		copies = 3
	}
	cache := min(m.cfg.Solver.CacheMB*(1<<20), 4*n*n+8*n)
	return cpFitMemory(m.r, s, m.cfg.Scale) + copies*comps + cache + 12*8*n + (1+saveFactor)*comps
}

// linearMemory is what a linear machine's fit holds beside its inputs:
// the n × D summed features, each worker's block of R·256 feature rows
// (rank above 1), the machine's per-sample arrays, the map's frequencies
// (D × in) with the transposed copy its products use, and saving them.
func linearMemory(n, R, in, D float64) float64 {
	var block float64
	if R > 1 {
		block = workers() * 8 * 256 * R * D
	}
	return 8*n*D + block + 6*8*n + (2+saveFactor)*8*D*in
}

// linearScoreMemory is a linear model's Score of data of size s (R
// inputs per sample): the scores, a block of scoreBlock rows' features
// and each worker's feature rows (rank above 1). The frequencies'
// transposed copy is made by the fit or by Decode, never by Score.
func linearScoreMemory(s method.Size, R, D float64) float64 {
	block := min(float64(s.Rows), scoreBlock)
	var per float64
	if R > 1 {
		per = workers() * 8 * 256 * R * D
	}
	return 8*float64(s.Rows) + 8*block*D + per
}

// permodeMemory is what the per-mode construction (construction=permode)
// holds beside the summed features: each mode's map (Dm × I_n frequencies,
// Dm offsets and the D × Dm random signs) and, for a block of rows, each
// mode's features and their projection (rows × Dm and rows × D).
func permodeMemory(r resolved, rows, Dm, D float64) float64 {
	var maps float64
	for _, side := range r.shape {
		maps += Dm*float64(side) + Dm + D*Dm
	}
	return 8*maps + 8*rows*(Dm+D)
}

// memoryR1STM: the component vectors and a chunk's factorisation (never
// the rows), the summed features and the linear machine; scoring, a
// chunk's component vectors and a block's features.
func memoryR1STM(m *R1STM, op method.Op, s method.Size) float64 {
	n, R, D := float64(s.Rows), float64(m.r.rank), float64(m.cfg.Features)
	dim := float64(m.r.dim)
	var est float64
	if op == method.ScoreOp {
		est = cpScoreMemory(m.r, s) + linearScoreMemory(s, R, D)
	} else {
		est = cpFitMemory(m.r, s, m.cfg.Scale) + linearMemory(n, R, dim, D)
	}
	if m.cfg.Construction == PerMode {
		Dm := float64(m.cfg.ModeFeatures)
		rows := workers() * 256 * R
		est += permodeMemory(m.r, rows, Dm, D)
		if op == method.FitOp { // saving the maps
			est += saveFactor * permodeMemory(m.r, 0, Dm, D)
		}
	}
	return est
}

// memoryR1SVM: the rows in memory (a scaled copy, or the densified copy
// of sparse rows, unless the dense rows are used as they are under
// scale=none), the summed features and the linear machine; scoring, a
// chunk's densified and scaled copies (sparse input) and a block's
// features.
func memoryR1SVM(m *R1SVM, op method.Op, s method.Size) float64 {
	n, d, D := float64(s.Rows), float64(s.Cols), float64(m.cfg.Features)
	if op == method.ScoreOp {
		// and the frequencies' transposed copy Decode makes beside the
		// ones the model file holds (a front end counts the file's):
		// Load then Score of 400 × 50,000 sparse rows peaked at 1,181 MB
		// against 609 MB counted without it.
		return linearScoreMemory(s, 1, D) + scoreChunkMemory(s) + 8*D*d
	}
	var rows float64
	if s.Sparse || m.cfg.Scale != scale.None {
		rows = 8 * n * d
	}
	return rows + stageChunkMemory(s, m.cfg.Scale) + linearMemory(n, 1, d, D)
}
