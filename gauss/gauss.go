package gauss

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/parallel"
	"github.com/kernelad/anomaly/param"
)

// Scores of the Gaussian detector.
const (
	Mahalanobis = "mahalanobis" // squared Mahalanobis distance (default)
	NLL         = "nll"         // negative log density
)

// Config configures the Gaussian detector. The zero value is the default.
type Config struct {
	// Score is Mahalanobis (default) or NLL.
	Score string
	// Shrinkage ρ ∈ (0, 1] fixes the covariance's shrinkage toward μI; 0
	// means the Ledoit–Wolf estimate.
	Shrinkage float64
	// Common holds the contamination rate and the scale stage (default
	// standard).
	detector.Common
}

// Bind declares the parameters of the Gaussian detector.
func (c *Config) Bind(s *param.Set) {
	s.Choice(&c.Score, "score", Mahalanobis, []string{Mahalanobis, NLL}, nil, "mahalanobis (squared distance) or nll (−log density)")
	s.OptionalFloat(&c.Shrinkage, "shrinkage", param.Interval(0, 1, true, false), "covariance shrinkage toward μI; unset: the Ledoit–Wolf estimate")
}

// Gauss is a fitted (or unfitted) Gaussian detector.
type Gauss struct {
	detector.Base
	cfg    Config
	mean   []float64
	chol   *mat.Cholesky
	logDet float64
	rho    float64 // the shrinkage used
}

// New returns an unfitted Gaussian detector.
func New(cfg Config) (*Gauss, error) {
	b, err := detector.NewBase("gauss", &cfg)
	if err != nil {
		return nil, err
	}
	return &Gauss{Base: b, cfg: cfg}, nil
}

// Config returns the resolved configuration.
func (g *Gauss) Config() Config { return g.cfg }

// Shrinkage returns the shrinkage ρ of the fitted covariance.
func (g *Gauss) Shrinkage() float64 { return g.rho }

// Fit estimates the mean and the shrunk covariance of the rows of X.
func (g *Gauss) Fit(ctx context.Context, X mat.Matrix) error {
	return g.FitWith(ctx, X, g.fit)
}

func (g *Gauss) fit(ctx context.Context, X mat.Matrix) ([]float64, error) {
	n, d := X.Dims()
	if n < 2 {
		return nil, fmt.Errorf("gauss: need at least 2 training rows, got %d", n)
	}
	xc := mat.DenseCopyOf(X)
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range xc.RawRowView(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		row := xc.RawRowView(i)
		for j := range row {
			row[j] -= mean[j]
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var S mat.SymDense
	S.SymOuterK(1/float64(n), xc.T())
	rho := g.cfg.Shrinkage
	if rho == 0 {
		rho = ledoitWolf(xc, &S)
	}
	chol, r, err := shrink(&S, rho)
	if err != nil {
		return nil, fmt.Errorf("gauss: %w", err)
	}
	g.mean, g.chol, g.rho = mean, chol, r
	g.logDet = chol.LogDet()
	return g.score(make([]float64, n), X), nil
}

// ledoitWolf returns the Ledoit–Wolf shrinkage of the empirical
// covariance S of the centred rows xc (the formula of the package
// documentation, as scikit-learn's ledoit_wolf_shrinkage).
func ledoitWolf(xc *mat.Dense, S *mat.SymDense) float64 {
	n, d := xc.Dims()
	mu := mat.Trace(S) / float64(d)
	// δ = ‖S − μI‖²_F / d.
	var delta float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := S.At(i, j)
			if i == j {
				v -= mu
			}
			delta += v * v
		}
	}
	delta /= float64(d)
	// β = (1/(n²d)) Σ_i ‖x_i x_iᵀ − S‖²_F
	//   = (1/(nd)) ((1/n) Σ_i ‖x_i‖⁴ − ‖S‖²_F).
	var sum4, sF float64
	for i := 0; i < n; i++ {
		var q float64
		for _, v := range xc.RawRowView(i) {
			q += v * v
		}
		sum4 += q * q
	}
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			sF += S.At(i, j) * S.At(i, j)
		}
	}
	beta := (sum4/float64(n) - sF) / (float64(n) * float64(d))
	beta = math.Min(math.Max(beta, 0), delta)
	if beta == 0 || delta == 0 {
		return 0
	}
	return beta / delta
}

// shrink returns the Cholesky factor of (1 − ρ)S + ρμI and the ρ used: if
// that matrix is singular (ρ = 0 and S rank-deficient) ρ grows to the
// smallest power of ten from 1e-10 that makes it positive definite. Data
// that is constant everywhere (μ = 0) gets Σ = I.
func shrink(S *mat.SymDense, rho float64) (*mat.Cholesky, float64, error) {
	d := S.SymmetricDim()
	mu := mat.Trace(S) / float64(d)
	if !(mu > 0) {
		var c mat.Cholesky
		id := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			id.SetSym(i, i, 1)
		}
		c.Factorize(id)
		return &c, 1, nil
	}
	if math.IsInf(mu, 0) || math.IsNaN(mu) {
		return nil, 0, errors.New("the covariance is not finite; scale the features (scale=standard)")
	}
	for r := rho; r <= 1; {
		sig := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				v := (1 - r) * S.At(i, j)
				if i == j {
					v += r * mu
				}
				sig.SetSym(i, j, v)
			}
		}
		var c mat.Cholesky
		if c.Factorize(sig) {
			return &c, r, nil
		}
		if r == 0 {
			r = 1e-10
		} else {
			r *= 10
		}
	}
	return nil, 0, errors.New("the shrunk covariance is not positive definite")
}

// Score returns the squared Mahalanobis distance (or −log density) of the
// rows of X.
func (g *Gauss) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return g.ScoreWith(dst, X, func(dst []float64, X mat.Matrix) ([]float64, error) {
		r, _ := X.Dims()
		return g.score(detector.ScoreDst(dst, r), X), nil
	})
}

func (g *Gauss) score(dst []float64, X mat.Matrix) []float64 {
	r, d := X.Dims()
	var L mat.TriDense
	g.chol.LTo(&L)
	parallel.ForRanges(r, 512, func(lo, hi int) {
		z := mat.NewVecDense(d, nil)
		y := mat.NewVecDense(d, nil)
		for i := lo; i < hi; i++ {
			for j := 0; j < d; j++ {
				z.SetVec(j, X.At(i, j)-g.mean[j])
			}
			// D² = ‖L⁻¹(x − m)‖².
			if err := y.SolveVec(&L, z); err != nil {
				dst[i] = math.Inf(1)
				continue
			}
			m2 := mat.Dot(y, y)
			if g.cfg.Score == NLL {
				m2 = 0.5 * (m2 + float64(d)*math.Log(2*math.Pi) + g.logDet)
			}
			dst[i] = m2
		}
	})
	return dst
}

type state struct {
	Mean []float64
	U    []float64 // the Cholesky factor U of Σ = UᵀU, d × d row-major (upper triangle)
	Rho  float64
}

var errState = errors.New("gauss: invalid model state")

// MarshalBinary encodes the mean and the Cholesky factor of the shrunk
// covariance (the factor itself, so a reloaded model scores bit for bit
// as the fitted one).
func (g *Gauss) MarshalBinary() ([]byte, error) {
	if !g.Fitted() {
		return nil, detector.ErrNotFitted
	}
	var u mat.TriDense
	g.chol.UTo(&u)
	d := len(g.mean)
	flat := make([]float64, 0, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			flat = append(flat, u.At(i, j))
		}
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(state{Mean: g.mean, U: flat, Rho: g.rho}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes a model written by MarshalBinary: an upper
// triangular factor with a positive, finite diagonal.
func (g *Gauss) UnmarshalBinary(b []byte) error {
	var s state
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&s); err != nil {
		return fmt.Errorf("gauss: decoding state: %w", err)
	}
	d := len(s.Mean)
	if d == 0 || len(s.U) != d*d {
		return errState
	}
	u := mat.NewTriDense(d, mat.Upper, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := s.U[i*d+j]
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0), j < i && v != 0, j == i && !(v > 0):
				return errState
			case j >= i:
				u.SetTri(i, j, v)
			}
		}
	}
	for _, v := range s.Mean {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return errState
		}
	}
	var c mat.Cholesky
	c.SetFromU(u)
	g.mean, g.chol, g.rho, g.logDet = s.Mean, &c, s.Rho, c.LogDet()
	return nil
}

// memory estimates the peak bytes: the centred copy of the rows, the
// covariance and its factor; scoring, two vectors per worker.
func memory(g *Gauss, op detector.Op, s detector.Size) int64 {
	n, d := int64(s.Rows), int64(s.Cols)
	if op == detector.ScoreOp {
		return 8*n + 16*d*int64(runtime.GOMAXPROCS(0))
	}
	return 8*n*d + 4*8*d*d + 8*n
}

func init() {
	detector.Register(detector.Info{
		Name:    "gauss",
		Summary: "parametric Gaussian with Ledoit–Wolf covariance shrinkage; score the squared Mahalanobis distance or −log density (a reference detector)",
		Version: 1,
	}, New, memory)
}
