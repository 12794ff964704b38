package stm

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/kernel"
	"github.com/kernelad/anomaly/randfeat"
)

// Construction selects how R1STM builds random features from CP factors.
type Construction int

const (
	// Concat maps each component's concatenated factor vector with one
	// random Fourier map (the default; see the package documentation).
	Concat Construction = iota
	// PerMode is the paper's construction (Figure 1, eq. 4.21): random
	// Fourier features per mode, combined by random rank-one projections.
	PerMode
)

// DefaultModeFeatures is the per-mode feature count of PerMode.
const DefaultModeFeatures = 64

// ParseConstruction reads "concat" or "permode".
func ParseConstruction(s string) (Construction, error) {
	switch s {
	case "", "concat":
		return Concat, nil
	case "permode":
		return PerMode, nil
	}
	return 0, fmt.Errorf("unknown construction %q (want concat or permode)", s)
}

// permodeMap is the per-mode feature map: for a component with mode vectors
// x^(n), feature j is
//
//	z_j = (1/√D) Π_n ⟨u_j^(n), φ_n(x^(n))⟩,
//
// with φ_n a random Fourier map of the Gaussian kernel on ℝ^{I_n} (Dm
// features) and u_j^(n) independent Rademacher vectors. Since
// E[u uᵀ] = I and the modes are independent,
// E⟨z(x), z(y)⟩ = Π_n E⟨φ_n(x^(n)), φ_n(y^(n))⟩ = Π_n exp(−γ‖x^(n) − y^(n)‖²),
// the rank-one term of eq. 4.18.
type permodeMap struct {
	sides []int
	maps  []*randfeat.Fourier
	u     []*mat.Dense // D × Dm per mode
	D     int
}

func newPermodeMap(sides []int, gamma float64, Dm, D int, src rand.Source) *permodeMap {
	if Dm == 0 {
		Dm = DefaultModeFeatures
	}
	rng := rand.New(src)
	p := &permodeMap{sides: append([]int(nil), sides...), D: D}
	for _, s := range sides {
		p.maps = append(p.maps, randfeat.NewFourier(kernel.RBF{Gamma: gamma}, s, Dm, rand.NewPCG(rng.Uint64(), rng.Uint64())))
		u := mat.NewDense(D, Dm, nil)
		for i := range u.RawMatrix().Data {
			if rng.Uint64()&1 == 0 {
				u.RawMatrix().Data[i] = 1
			} else {
				u.RawMatrix().Data[i] = -1
			}
		}
		p.u = append(p.u, u)
	}
	return p
}

// Dim returns D.
func (p *permodeMap) Dim() int { return p.D }

// Transform sets dst to the features of the rows of X (component vectors,
// modes concatenated). dst must be rows × D or empty, as for randfeat.Map;
// it may be a view into a larger matrix.
func (p *permodeMap) Transform(dst *mat.Dense, X mat.Matrix) {
	rows, _ := X.Dims()
	if dst.IsEmpty() {
		dst.ReuseAs(rows, p.D)
	}
	if r, c := dst.Dims(); r != rows || c != p.D {
		panic(mat.ErrShape)
	}
	for i := 0; i < rows; i++ {
		row := dst.RawRowView(i)
		for j := range row {
			row[j] = 1 / math.Sqrt(float64(p.D))
		}
	}
	off := 0
	var phi, proj mat.Dense
	for n, s := range p.sides {
		block := X.(interface {
			Slice(i, k, j, l int) mat.Matrix
		}).Slice(0, rows, off, off+s)
		off += s
		phi.Reset()
		p.maps[n].Transform(&phi, block)
		proj.Reset()
		proj.Mul(&phi, p.u[n].T())
		for i := 0; i < rows; i++ {
			row, pr := dst.RawRowView(i), proj.RawRowView(i)
			for j := range row {
				row[j] *= pr[j]
			}
		}
	}
}
