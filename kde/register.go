package kde

import (
	"context"
	"math"
	"runtime"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/fastmath"
	"gonum.org/v1/gonum/mat"
)

// stateVersion is the version of the saved state (detector.Method.Version).
const stateVersion = 1

func init() {
	detector.RegisterLegacy(detector.Info{
		Name:    "kde",
		Summary: "kernel density estimate; score −log p̂(x) (six kernels, scale_scott/scale/scott/silverman/cv bandwidth, exact or kd-tree)",
		Version: stateVersion,
	}, New, memory)
}

// memory estimates the peak bytes of a fit (the centred copy of the
// training rows, the tree, and the exact scorer's per-worker kernel
// blocks) or a score (the kernel blocks of the workers).
func memory(k *KDE, op detector.Op, s detector.Size) float64 {
	n, d := float64(s.Rows), float64(s.Cols)
	workers := float64(runtime.GOMAXPROCS(0))
	block := workers * 8 * (64*n + n + 64*d)
	if op == detector.ScoreOp {
		block = workers * 8 * (64*float64(k.n) + float64(k.n) + 64*d)
		return block + 8*n
	}
	// and saving the model, which holds the centred rows
	return 8*n*d + 8*3*n + block + detector.SaveFactor*8*n*d
}

type state struct {
	Kernel int
	H      float64
	Mean   []float64
	N, D   int
	X      []float64 // centred training rows, n × d
}

// MarshalBinary encodes the fitted model (the centred training rows, their
// mean, the bandwidth and the threshold); the tree is rebuilt on load.
func (k *KDE) MarshalBinary() ([]byte, error) {
	if !k.Fitted() {
		return nil, detector.ErrNotFitted
	}
	return detector.EncodeState("kde", state{Kernel: int(k.cfg.Kernel), H: k.h, Mean: k.mean, N: k.n, D: k.d, X: detector.RowMajor(k.xc)})
}

// UnmarshalBinary restores a model written by MarshalBinary into a detector
// built with the same parameters. Inconsistent or non-finite state is an
// error.
func (k *KDE) UnmarshalBinary(b []byte) error {
	var s state
	if err := detector.DecodeState("kde", b, &s); err != nil {
		return err
	}
	if s.Kernel != int(k.cfg.Kernel) || s.N < 1 || s.D < 1 || s.N > math.MaxInt32 || s.D > math.MaxInt32 ||
		len(s.Mean) != s.D || len(s.X) != s.N*s.D || !(s.H > 0) || math.IsInf(s.H, 0) || !detector.Finite(s.X, s.Mean) {
		return errState
	}
	if err := k.CheckStateDim(s.D); err != nil {
		return err
	}
	xc := mat.NewDense(s.N, s.D, s.X)
	sqn := make([]float64, s.N)
	for i := range sqn {
		sqn[i] = fastmath.SumSquares(xc.RawRowView(i))
	}
	k.d, k.n, k.h, k.mean, k.xc, k.sqn, k.tree = s.D, s.N, s.H, s.Mean, xc, sqn, nil
	k.logNorm = k.cfg.Kernel.logNorm(s.H, s.D) - math.Log(float64(s.N))
	if k.useTree() {
		k.tree, _ = buildTree(context.Background(), xc, k.leafSize()) // no cancel: no error
	}
	return nil
}
