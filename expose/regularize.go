package expose

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/kernelad/anomaly/randfeat"
)

// Regularisers of the EXPoSE objective (section 4.2 of the paper).
const (
	NoRegularizer = "none"
	L1            = "l1"        // λ‖w‖₁: soft-thresholding of the embedding
	Roughness     = "roughness" // λ⟨D²w, D²w⟩: damping of high frequencies
)

// regularizer is a regulariser resolved on a feature map: what the batch
// solution and the SGD step need, in the random-feature coordinates.
type regularizer struct {
	kind   string
	lambda float64
	// shrink[j] = 1/(1 + 2λ‖ω_j‖⁴) for the roughness penalty.
	shrink []float64
}

// newRegularizer resolves kind with weight lambda on the feature map fm.
// The roughness penalty needs the map's frequencies (every cosine map of
// randfeat has them).
func newRegularizer(kind string, lambda float64, fm randfeat.Map) regularizer {
	r := regularizer{kind: kind, lambda: lambda}
	if kind == Roughness && lambda > 0 {
		W, _ := fm.(cosineMap).Frequencies()
		D, _ := W.Dims()
		r.shrink = make([]float64, D)
		for j := range r.shrink {
			row := W.RawRowView(j)
			w2 := floats.Dot(row, row) // ‖ω_j‖²
			r.shrink[j] = 1 / (1 + 2*lambda*w2*w2)
		}
	}
	return r
}

// active reports whether the regulariser changes anything.
func (r regularizer) active() bool { return r.kind != NoRegularizer && r.kind != "" && r.lambda > 0 }

// solve turns the mean embedding m (the unregularised minimiser) into the
// minimiser of ½‖w‖² + λΩ(w) − ⟨m, w⟩, in place: soft-thresholding at λ
// for l1, the shrinkage m_j/(1 + 2λ‖ω_j‖⁴) for roughness.
func (r regularizer) solve(m []float64) {
	switch {
	case !r.active():
	case r.kind == L1:
		softThreshold(m, r.lambda)
	case r.kind == Roughness:
		floats.Mul(m, r.shrink)
	}
}

// step is one SGD iteration with step size g on the feature vector z of a
// sampled row, before the projection onto the ball: the plain running
// mean w ← (1 − g)w + g·z; for roughness the same with z shrunk (the
// diagonal preconditioning that makes the 1/t step stable at any λ); for
// l1 the proximal step soft-threshold((1 − g)w + g·z, gλ).
func (r regularizer) step(w, z []float64, g float64) {
	floats.Scale(1-g, w)
	if r.active() && r.kind == Roughness {
		for j, v := range z {
			w[j] += g * v * r.shrink[j]
		}
		return
	}
	floats.AddScaled(w, g, z)
	if r.active() && r.kind == L1 {
		softThreshold(w, g*r.lambda)
	}
}

// softThreshold sets w_j = sign(w_j)·max(|w_j| − t, 0).
func softThreshold(w []float64, t float64) {
	for j, v := range w {
		w[j] = math.Copysign(math.Max(math.Abs(v)-t, 0), v)
	}
}
