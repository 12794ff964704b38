package randfeat

import (
	"math"
	"math/rand/v2"

	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/sparse"
	"gonum.org/v1/gonum/mat"
)

// Map is an explicit feature map z: R^InputDim → R^Dim whose inner products
// approximate a kernel: ⟨z(x), z(y)⟩ ≈ k(x, y).
type Map interface {
	InputDim() int
	Dim() int
	// Transform sets dst to z(X), one feature row per row of X. dst must be
	// n × Dim, or empty (then it is allocated). X may be dense, a view, or a
	// *sparse.CSR, which is never densified.
	Transform(dst *mat.Dense, X mat.Matrix)
}

// Fourier is the random Fourier feature map of Rahimi and Recht:
// z(x) = √(2/D) cos(Wx + b), W's rows drawn from the kernel's spectral
// distribution and b ~ U[0, 2π).
type Fourier struct {
	W *mat.Dense // D × d frequencies, one per row
	B []float64  // D phases
}

// NewFourier draws a D-feature map for d-dimensional inputs from src.
func NewFourier(k kernel.ShiftInvariant, d, D int, src rand.Source) *Fourier {
	if d < 1 || D < 1 {
		panic("randfeat: need d ≥ 1 and D ≥ 1")
	}
	rng := rand.New(src)
	w := mat.NewDense(D, d, nil)
	b := make([]float64, D)
	for i := 0; i < D; i++ {
		k.SampleFrequency(w.RawRowView(i), rng)
		b[i] = 2 * math.Pi * rng.Float64()
	}
	return &Fourier{W: w, B: b}
}

// InputDim returns d.
func (f *Fourier) InputDim() int { _, c := f.W.Dims(); return c }

// Dim returns D.
func (f *Fourier) Dim() int { return len(f.B) }

// Transform sets dst to z(X).
func (f *Fourier) Transform(dst *mat.Dense, X mat.Matrix) {
	n, c := X.Dims()
	if c != f.InputDim() {
		panic(mat.ErrShape)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(n, f.Dim())
	}
	if r, cc := dst.Dims(); r != n || cc != f.Dim() {
		panic(mat.ErrShape)
	}
	if s, ok := X.(*sparse.CSR); ok {
		s.MulDenseT(dst, f.W)
	} else {
		dst.Mul(X, f.W.T())
	}
	scale := math.Sqrt(2 / float64(f.Dim()))
	raw := dst.RawMatrix()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j, v := range row {
			row[j] = scale * math.Cos(v+f.B[j])
		}
	}
}
