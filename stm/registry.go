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
	detector.Register(detector.Info{
		Name:    "1stm",
		Summary: "one-class support tensor machine: CP factors, the kernel of eq. 4.18, the OC-SVM dual through smo; score ρ − Σα_i K(X_i, X)",
		Version: 2,
		Scale:   TensorScale,
	}, NewOneSTM, memoryOneSTM)
	detector.Register(detector.Info{
		Name:    "r1stm",
		Summary: "randomised one-class support tensor machine: random Fourier features of the CP components, linear one-class machine; score ρ − ⟨w, z(X)⟩",
		Version: 2,
		Scale:   TensorScale,
	}, NewR1STM, memoryR1STM)
	detector.Register(detector.Info{
		Name:    "r1svm",
		Summary: "randomised one-class SVM: random Fourier features of the rows, linear one-class machine (the R1SVM baseline)",
		Version: 2,
	}, NewR1SVM, memoryR1SVM)
}

// cpMemory is the CP-ALS of n samples: the batch's Kruskal tensors, the
// n·R component vectors of length Σ I_n made from them, and each worker's
// unfoldings and Gram matrices.
func cpMemory(r resolved, n int64) int64 {
	R := int64(r.rank)
	return n*cpd.KruskalBytes(r.shape, r.rank) + 8*n*R*int64(r.dim) + int64(runtime.GOMAXPROCS(0))*8*(3*int64(r.d)+4*R*int64(r.dim))
}

// memoryOneSTM: the component vectors, the solver's column cache (bounded
// by cache_mb) and its per-sample arrays; scoring, the component vectors
// and their kernel values against the support components.
func memoryOneSTM(m *OneSTM, op detector.Op, s detector.Size) int64 {
	n := int64(s.Rows)
	if op == detector.ScoreOp {
		sv := int64(0)
		if m.exp != nil {
			sv = int64(m.exp.Len())
		}
		return cpMemory(m.r, n) + smo.EvalBytes(s.Rows*m.r.rank, m.r.dim, int(sv))
	}
	cache := min(int64(m.cfg.Solver.CacheMB*(1<<20)), 4*n*n+8*n)
	return 2*cpMemory(m.r, n) + cache + 12*8*n // the solver copies the component vectors
}

// linearMemory is the random features of n samples (n × D summed features,
// a block of R·1024 feature rows) and the map's frequencies.
func linearMemory(n, R, in, D int64) int64 {
	return 8*n*D + 8*1024*R*D + 8*D*in
}

func memoryR1STM(m *R1STM, _ detector.Op, s detector.Size) int64 {
	n, R := int64(s.Rows), int64(m.r.rank)
	return cpMemory(m.r, n) + linearMemory(n, R, int64(m.r.dim), int64(m.cfg.Features))
}

func memoryR1SVM(m *R1SVM, _ detector.Op, s detector.Size) int64 {
	n, d := int64(s.Rows), int64(s.Cols)
	return 8*n*d + linearMemory(n, 1, d, int64(m.cfg.Features))
}
