package stm

import (
	"runtime"

	"github.com/kernelad/anomaly/cpd"
	"github.com/kernelad/anomaly/detector"
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
	detector.RegisterLegacy(detector.Info{
		Name:    "1stm",
		Summary: "one-class support tensor machine: CP factors, the kernel of eq. 4.18, the OC-SVM dual through smo; score ρ − Σα_i K(X_i, X)",
		Version: 2,
		Scale:   TensorScale,
	}, NewOneSTM, memoryOneSTM)
	detector.RegisterLegacy(detector.Info{
		Name:    "r1stm",
		Summary: "randomised one-class support tensor machine: random Fourier features of the CP components, linear one-class machine; score ρ − ⟨w, z(X)⟩",
		Version: 2,
		Scale:   TensorScale,
	}, NewR1STM, memoryR1STM)
	detector.RegisterLegacy(detector.Info{
		Name:    "r1svm",
		Summary: "randomised one-class SVM: random Fourier features of the rows, linear one-class machine (the R1SVM baseline)",
		Version: 2,
	}, NewR1SVM, memoryR1SVM)
}

// cpMemory is the CP-ALS of n samples: the batch's Kruskal tensors, the
// n·R component vectors of length Σ I_n made from them, and each worker's
// unfoldings and Gram matrices. Like every estimate it is float64, so that
// no product of sizes and parameters wraps round (detector.Register).
func cpMemory(r resolved, n float64) float64 {
	R := float64(r.rank)
	return n*float64(cpd.KruskalBytes(r.shape, r.rank)) + 8*n*R*float64(r.dim) + float64(runtime.GOMAXPROCS(0))*8*(3*float64(r.d)+4*R*float64(r.dim))
}

// memoryOneSTM: the component vectors, the solver's column cache (bounded
// by cache_mb) and its per-sample arrays; scoring, the component vectors
// and their kernel values against the support components.
func memoryOneSTM(m *OneSTM, op detector.Op, s detector.Size) float64 {
	n := float64(s.Rows)
	if op == detector.ScoreOp {
		sv := 0
		if m.exp != nil {
			sv = m.exp.Len()
		}
		return cpMemory(m.r, n) + float64(smo.EvalBytes(s.Rows*m.r.rank, m.r.dim, sv, false))
	}
	cache := min(m.cfg.Solver.CacheMB*(1<<20), 4*n*n+8*n)
	// The solver copies the component vectors; the model saves those of
	// the support samples (at most all).
	sv := 8 * n * float64(m.r.rank*m.r.dim)
	return 2*cpMemory(m.r, n) + cache + 12*8*n + detector.SaveFactor*sv
}

// linearMemory is the random features of n samples (n × D summed features,
// a block of R·sumBlock feature rows) and the map's frequencies (D × in)
// with the transposed copy its products use.
func linearMemory(n, R, in, D float64) float64 {
	return 8*n*D + 8*sumBlock*R*D + 2*8*D*in
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

func memoryR1STM(m *R1STM, op detector.Op, s detector.Size) float64 {
	n, R, D := float64(s.Rows), float64(m.r.rank), float64(m.cfg.Features)
	if m.cfg.Construction == PerMode {
		Dm := m.cfg.ModeFeatures
		if Dm == 0 {
			Dm = DefaultModeFeatures
		}
		block := float64(min(sumBlock, s.Rows)) * R
		est := cpMemory(m.r, n) + 8*n*D + 8*block*D + permodeMemory(m.r, block, float64(Dm), D)
		if op == detector.FitOp { // saving the maps
			est += detector.SaveFactor * (permodeMemory(m.r, 0, float64(Dm), D))
		}
		return est
	}
	est := cpMemory(m.r, n) + linearMemory(n, R, float64(m.r.dim), D)
	if op == detector.FitOp { // saving the frequencies
		est += detector.SaveFactor * 8 * D * float64(m.r.dim)
	}
	return est
}

func memoryR1SVM(m *R1SVM, op detector.Op, s detector.Size) float64 {
	n, d, D := float64(s.Rows), float64(s.Cols), float64(m.cfg.Features)
	rows := 8 * n * d // a dense input's copy
	if s.Sparse {
		rows = 16 * float64(s.NonZeros) // sparse rows are used as they are
	}
	est := rows + linearMemory(n, 1, d, D)
	if op == detector.FitOp { // saving the frequencies
		est += detector.SaveFactor * 8 * D * d
	}
	return est
}
