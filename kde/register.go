package kde

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math"
	"strconv"

	"github.com/kernelad/anomaly/detector"
	"gonum.org/v1/gonum/mat"
)

// stateVersion is the version of the saved state (detector.Method.Version).
const stateVersion = 1

func init() {
	detector.Register(detector.Method{
		Name:    "kde",
		Summary: "kernel density estimate; score −log p̂(x) (six kernels, scott/silverman/cv bandwidth, exact or kd-tree)",
		Version: stateVersion,
		Params: []detector.Param{
			{Name: "kernel", Default: "gaussian", Help: "gaussian, tophat, epanechnikov, exponential, linear or cosine"},
			{Name: "bandwidth", Default: "scott", Help: "a number > 0, scott, silverman (scikit-learn's bare factors) or cv (leave-one-out likelihood over a grid)"},
			{Name: "algorithm", Default: "auto", Help: "exact, tree, or auto (exact unless rtol or atol is set)"},
			{Name: "rtol", Default: "0", Help: "tree: relative tolerance on the density"},
			{Name: "atol", Default: "0", Help: "tree: absolute tolerance on the density"},
			{Name: "leaf_size", Default: "40", Help: "tree: leaves hold leaf_size to 2·leaf_size−1 rows"},
			{Name: "contamination", Default: "0.1", Help: "share of training rows above the threshold, in (0, 0.5]"},
		},
		New: func(p *detector.Params) (detector.Detector, error) {
			var cfg Config
			kname := p.Choice("kernel", "gaussian", kernelNames[:]...)
			cfg.Kernel, _ = ParseKernel(kname)
			switch bw := p.String("bandwidth", "scott"); bw {
			case "scott":
				cfg.Rule = Scott
			case "silverman":
				cfg.Rule = Silverman
			case "cv":
				cfg.Rule = CV
			default:
				h, err := strconv.ParseFloat(bw, 64)
				p.Check(err == nil && h > 0 && !math.IsInf(h, 0), "bandwidth", "must be a number > 0, scott, silverman or cv")
				cfg.Bandwidth = h
			}
			switch p.Choice("algorithm", "auto", "auto", "exact", "tree") {
			case "exact":
				cfg.Algorithm = Exact
			case "tree":
				cfg.Algorithm = Tree
			}
			cfg.RTol = p.Float("rtol", 0)
			p.Check(cfg.RTol >= 0, "rtol", "must be ≥ 0")
			cfg.ATol = p.Float("atol", 0)
			p.Check(cfg.ATol >= 0, "atol", "must be ≥ 0")
			cfg.LeafSize = p.Int("leaf_size", 40)
			p.Check(cfg.LeafSize >= 1, "leaf_size", "must be ≥ 1")
			cfg.Contamination = p.Float("contamination", 0.1)
			if err := p.Err(); err != nil {
				return nil, err
			}
			if cfg.Bandwidth < 0 || cfg.RTol < 0 || cfg.ATol < 0 || cfg.LeafSize < 1 {
				return nil, fmt.Errorf("kde: invalid parameters")
			}
			return New(cfg)
		},
	})
}

type state struct {
	Kernel    int
	H         float64
	Mean      []float64
	N, D      int
	X         []float64 // centred training rows, n × d
	Threshold float64
}

// MarshalBinary encodes the fitted model (the centred training rows, their
// mean, the bandwidth and the threshold); the tree is rebuilt on load.
func (k *KDE) MarshalBinary() ([]byte, error) {
	if k.xc == nil {
		return nil, detector.ErrNotFitted
	}
	raw := k.xc.RawMatrix()
	data := make([]float64, 0, k.n*k.d)
	for i := 0; i < k.n; i++ {
		data = append(data, raw.Data[i*raw.Stride:i*raw.Stride+k.d]...)
	}
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(state{Kernel: int(k.cfg.Kernel), H: k.h, Mean: k.mean, N: k.n, D: k.d, X: data, Threshold: k.threshold})
	return b.Bytes(), err
}

// UnmarshalBinary restores a model written by MarshalBinary into a detector
// built with the same parameters. Inconsistent or non-finite state is an
// error.
func (k *KDE) UnmarshalBinary(b []byte) error {
	var s state
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return fmt.Errorf("kde: decoding state: %w", err)
	}
	if s.Kernel != int(k.cfg.Kernel) || s.N < 1 || s.D < 1 || s.N > math.MaxInt32 || s.D > math.MaxInt32 ||
		len(s.Mean) != s.D || len(s.X) != s.N*s.D || !(s.H > 0) || math.IsInf(s.H, 0) || math.IsNaN(s.Threshold) {
		return errState
	}
	for _, v := range s.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errState
		}
	}
	for _, v := range s.Mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errState
		}
	}
	xc := mat.NewDense(s.N, s.D, s.X)
	sqn := make([]float64, s.N)
	for i := range sqn {
		for _, v := range xc.RawRowView(i) {
			sqn[i] += v * v
		}
	}
	f := &KDE{cfg: k.cfg, cont: k.cont, d: s.D, n: s.N, h: s.H, mean: s.Mean, xc: xc, sqn: sqn, threshold: s.Threshold}
	f.logNorm = k.cfg.Kernel.logNorm(s.H, s.D) - math.Log(float64(s.N))
	if f.useTree() {
		f.tree = buildTree(xc, f.leafSize())
	}
	*k = *f
	return nil
}
