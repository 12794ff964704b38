package gauss

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
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
	chol   *mat.Cholesky // of Σ (d × d), or of M (n × n) in the low-rank form
	logDet float64       // log det Σ
	rho    float64       // the shrinkage used
	// The low-rank form (d > n, see lowRank): the centred training rows
	// and Σ = a·I + c·XcᵀXc.
	xc   *mat.Dense
	a, c float64
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
	xc, mean := detector.CentredCopy(X)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.mean, g.xc = mean, nil
	if d > n {
		if err := g.lowRank(xc); err != nil {
			return nil, fmt.Errorf("gauss: %w", err)
		}
		return g.score(make([]float64, n), X), nil
	}
	var S mat.SymDense
	S.SymOuterK(1/float64(n), xc.T())
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rho := g.cfg.Shrinkage
	if rho == 0 {
		rho = ledoitWolf(xc, &S)
	}
	chol, r, err := shrink(&S, rho)
	if err != nil {
		return nil, fmt.Errorf("gauss: %w", err)
	}
	g.chol, g.rho = chol, r
	g.logDet = chol.LogDet()
	return g.score(make([]float64, n), X), nil
}

// ledoitWolf returns the Ledoit–Wolf shrinkage of the empirical
// covariance S of the centred rows xc.
func ledoitWolf(xc *mat.Dense, S *mat.SymDense) float64 {
	n, d := xc.Dims()
	var frob, sum4 float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			frob += S.At(i, j) * S.At(i, j)
		}
	}
	for i := 0; i < n; i++ {
		var q float64
		for _, v := range xc.RawRowView(i) {
			q += v * v
		}
		sum4 += q * q
	}
	return lwShrinkage(n, d, mat.Trace(S), frob, sum4)
}

// lwShrinkage is the Ledoit–Wolf shrinkage of the package documentation
// (scikit-learn's ledoit_wolf_shrinkage) from n rows of d columns, tr S,
// ‖S‖²_F and Σ_i ‖x_i‖⁴:
//
//	μ = tr S/d,  δ = ‖S − μI‖²_F/d = (‖S‖²_F − dμ²)/d,
//	β = min(δ, ((1/n)Σ_i‖x_i‖⁴ − ‖S‖²_F)/(nd)),  ρ = β/δ.
func lwShrinkage(n, d int, trS, frobS, sum4 float64) float64 {
	nf, df := float64(n), float64(d)
	mu := trS / df
	delta := (frobS - df*mu*mu) / df
	beta := (sum4/nf - frobS) / (nf * df)
	beta = math.Min(math.Max(beta, 0), delta)
	if !(beta > 0) || !(delta > 0) {
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

// lowRank fits the covariance of d > n centred rows xc in the form
// Σ = a·I + c·XcᵀXc (a = ρμ, c = (1 − ρ)/n), never forming a d × d matrix:
// the Ledoit–Wolf shrinkage comes from the n × n Gram matrix G = XcXcᵀ
// (tr S = tr G/n, ‖S‖²_F = ‖G‖²_F/n², ‖x_i‖² = G_ii), and by Woodbury's
// identity
//
//	D²(z) = (‖z‖² − vᵀM⁻¹v)/a,  v = Xc z,  M = (a/c)·I + G,
//	log det Σ = d log a + log det M − n log(a/c),
//
// so a fit costs O(n²d) and a score O(nd) per row instead of O(d³) and
// O(d²). S is singular here, so ρ is at least 1e-10 (as shrink makes it).
func (g *Gauss) lowRank(xc *mat.Dense) error {
	n, d := xc.Dims()
	var G mat.SymDense
	G.SymOuterK(1, xc)
	var trG, frob, sum4 float64
	for i := 0; i < n; i++ {
		gi := G.At(i, i)
		trG += gi
		sum4 += gi * gi
		for j := 0; j < n; j++ {
			frob += G.At(i, j) * G.At(i, j)
		}
	}
	nf, df := float64(n), float64(d)
	mu := trG / (nf * df)
	if !(mu > 0) { // constant data: Σ = I
		g.rho = 1
		return g.setLowRank(xc, &G, 1, 0)
	}
	if math.IsInf(mu, 0) || math.IsNaN(mu) {
		return errors.New("the covariance is not finite; scale the features (scale=standard)")
	}
	rho := g.cfg.Shrinkage
	if rho == 0 {
		rho = lwShrinkage(n, d, trG/nf, frob/(nf*nf), sum4)
	}
	rho = math.Max(rho, 1e-10)
	g.rho = rho
	return g.setLowRank(xc, &G, rho*mu, (1-rho)/nf)
}

// setLowRank sets Σ = a·I + c·XcᵀXc from the centred rows and their Gram
// matrix G (nil: computed here), factorising M = (a/c)·I + G.
func (g *Gauss) setLowRank(xc *mat.Dense, G *mat.SymDense, a, c float64) error {
	n, d := xc.Dims()
	g.xc, g.a, g.c = xc, a, c
	if c == 0 { // ρ = 1: Σ = aI
		g.chol, g.logDet = nil, float64(d)*math.Log(a)
		return nil
	}
	if G == nil {
		G = new(mat.SymDense)
		G.SymOuterK(1, xc)
	}
	M := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := G.At(i, j)
			if i == j {
				v += a / c
			}
			M.SetSym(i, j, v)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(M) {
		return errors.New("the shrunk covariance is not positive definite")
	}
	g.chol = &ch
	g.logDet = float64(d)*math.Log(a) + ch.LogDet() - float64(n)*math.Log(a/c)
	return nil
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
	if g.xc != nil {
		return g.scoreLowRank(dst, X)
	}
	r, d := X.Dims()
	var L mat.TriDense
	g.chol.LTo(&L)
	lt := L.RawTriangular()
	// D² = ‖L⁻¹(x − m)‖², for a block of rows Z at once: Y·Lᵀ = Z (one
	// triangular solve with many right-hand sides). Solving row by row
	// with VecDense.SolveVec also estimated L's condition number each
	// time, O(d²) more per row: 4,400 rows of 784 features scored in 14 s
	// instead of 0.2 s.
	parallel.ForRanges(r, scoreBlock, func(lo, hi int) {
		z, exps := g.centred(X, lo, hi)
		blas64.Trsm(blas.Right, blas.Trans, 1, lt, z.RawMatrix())
		for i := lo; i < hi; i++ {
			row := z.RawRowView(i - lo)
			dst[i] = g.finish(math.Ldexp(floats.Dot(row, row), 2*exps[i-lo]), d)
		}
	})
	return dst
}

// scoreBlock is the number of rows score solves for at a time.
const scoreBlock = 256

// centred returns rows lo to hi of X minus the mean, each row k in units
// of 2^exps[k]: 0 for ordinary rows (bit for bit x − m), the exponent of
// the row's largest magnitude for a row that reaches 2^500. The squared
// distance is linear in each row's scale, so the score is the scaled
// row's times 4^exps[k] (exact): a row far outside the training data
// scores +Inf where its distance passes float64's range, instead of the
// NaN of ±Inf meeting in the triangular solve.
func (g *Gauss) centred(X mat.Matrix, lo, hi int) (*mat.Dense, []int) {
	_, d := X.Dims()
	z := mat.NewDense(hi-lo, d, nil)
	exps := make([]int, hi-lo)
	for i := lo; i < hi; i++ {
		row := z.RawRowView(i - lo)
		var big float64
		for j := range row {
			row[j] = X.At(i, j)
			big = max(big, math.Abs(row[j]), math.Abs(g.mean[j]))
		}
		e := 0
		if big >= 0x1p500 {
			_, e = math.Frexp(big)
		}
		exps[i-lo] = e
		for j, x := range row {
			if e == 0 {
				row[j] = x - g.mean[j]
			} else {
				row[j] = math.Ldexp(x, -e) - math.Ldexp(g.mean[j], -e)
			}
		}
	}
	return z, exps
}

// finish turns a squared Mahalanobis distance into the score.
func (g *Gauss) finish(m2 float64, d int) float64 {
	if g.cfg.Score == NLL {
		return 0.5 * (m2 + float64(d)*math.Log(2*math.Pi) + g.logDet)
	}
	return m2
}

// scoreLowRank is score in the low-rank form (lowRank): vᵀM⁻¹v =
// ‖U⁻ᵀv‖² with M = UᵀU, for a block of rows at once (V = Z·Xcᵀ, then
// Y·U = V).
func (g *Gauss) scoreLowRank(dst []float64, X mat.Matrix) []float64 {
	r, d := X.Dims()
	n, _ := g.xc.Dims()
	var ut blas64.Triangular
	if g.chol != nil {
		var U mat.TriDense
		g.chol.UTo(&U)
		ut = U.RawTriangular()
	}
	parallel.ForRanges(r, scoreBlock, func(lo, hi int) {
		z, exps := g.centred(X, lo, hi)
		var v *mat.Dense
		if g.chol != nil {
			v = mat.NewDense(hi-lo, n, nil)
			v.Mul(z, g.xc.T())
			blas64.Trsm(blas.Right, blas.NoTrans, 1, ut, v.RawMatrix())
		}
		for i := lo; i < hi; i++ {
			row := z.RawRowView(i - lo)
			m2 := floats.Dot(row, row)
			if v != nil {
				y := v.RawRowView(i - lo)
				m2 -= floats.Dot(y, y)
			}
			dst[i] = g.finish(math.Ldexp(math.Max(m2, 0)/g.a, 2*exps[i-lo]), d)
		}
	})
	return dst
}

type state struct {
	Mean []float64
	U    []float64 // the Cholesky factor U of Σ = UᵀU, d × d row-major (upper triangle)
	Rho  float64
	// The low-rank form (d > n): the centred training rows, n × d
	// row-major, and Σ = A·I + C·XcᵀXc.
	N    int
	XC   []float64
	A, C float64
}

var errState = errors.New("gauss: invalid model state")

// MarshalBinary encodes the mean and the Cholesky factor of the shrunk
// covariance (the factor itself, so a reloaded model scores bit for bit
// as the fitted one), or in the low-rank form the centred training rows
// and the two coefficients (the factor is recomputed identically).
func (g *Gauss) MarshalBinary() ([]byte, error) {
	if !g.Fitted() {
		return nil, detector.ErrNotFitted
	}
	st := state{Mean: g.mean, Rho: g.rho}
	if g.xc != nil {
		n, d := g.xc.Dims()
		st.N, st.A, st.C = n, g.a, g.c
		st.XC = make([]float64, 0, n*d)
		for i := 0; i < n; i++ {
			st.XC = append(st.XC, g.xc.RawRowView(i)...)
		}
	} else {
		// The factor's own storage, read in place (RawU does not copy).
		u := g.chol.RawU()
		d := len(g.mean)
		st.U = make([]float64, 0, d*d)
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				st.U = append(st.U, u.At(i, j))
			}
		}
	}
	return detector.EncodeState("gauss", st)
}

// UnmarshalBinary decodes a model written by MarshalBinary: an upper
// triangular factor with a positive, finite diagonal, or finite centred
// rows with a > 0 and c ≥ 0.
func (g *Gauss) UnmarshalBinary(b []byte) error {
	var s state
	if err := detector.DecodeState("gauss", b, &s); err != nil {
		return err
	}
	d := len(s.Mean)
	if d == 0 || !detector.Finite(s.Mean) {
		return errState
	}
	if err := g.CheckStateDim(d); err != nil {
		return err
	}
	if s.N > 0 {
		if len(s.XC) != s.N*d || !detector.Finite(s.XC) || !(s.A > 0) || math.IsInf(s.A, 0) || !(s.C >= 0) || math.IsInf(s.C, 0) {
			return errState
		}
		g.mean, g.rho = s.Mean, s.Rho
		if err := g.setLowRank(mat.NewDense(s.N, d, s.XC), nil, s.A, s.C); err != nil {
			return errState
		}
		return nil
	}
	if len(s.U) != d*d {
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
	var c mat.Cholesky
	c.SetFromU(u)
	g.mean, g.chol, g.rho, g.logDet, g.xc = s.Mean, &c, s.Rho, c.LogDet(), nil
	return nil
}

// memory estimates the peak bytes: the centred copy of the rows, and the
// covariance and its factor (d ≤ n) or the Gram matrix and M (d > n, the
// low-rank form); scoring (which a fit ends with), each worker's block of
// centred rows and, in the low-rank form, their products with the
// training rows.
func memory(g *Gauss, op detector.Op, s detector.Size) float64 {
	n, d := float64(s.Rows), float64(s.Cols)
	workers := float64(runtime.GOMAXPROCS(0))
	lowRank := d > n
	if g.xc != nil {
		lowRank = true
		nt, _ := g.xc.Dims()
		d += float64(nt) // the block's products with the training rows
	}
	block := workers * 8 * scoreBlock * d
	if op == detector.ScoreOp {
		return 8*n + block
	}
	if lowRank {
		return 8*n*d + 3*8*n*n + 8*n + block + workers*8*scoreBlock*n + detector.SaveFactor*8*n*d // and saving the rows
	}
	return 8*n*d + 4*8*d*d + 8*n + block + detector.SaveFactor*8*d*d // and saving the factor
}

func init() {
	detector.Register(detector.Info{
		Name:    "gauss",
		Summary: "parametric Gaussian with Ledoit–Wolf covariance shrinkage; score the squared Mahalanobis distance or −log density (a reference detector)",
		Version: 1,
		MinRows: 2,
	}, New, memory)
}
