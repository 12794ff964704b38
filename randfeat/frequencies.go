package randfeat

import "gonum.org/v1/gonum/mat"

// Frequencies returns the map's frequency matrix W (D × d, one frequency per
// row) and phases b, so z(x) = √(2/D) cos(Wx + b) can be saved and rebuilt.
// The returned values alias the map and must not be modified.
func (f *Fourier) Frequencies() (W *mat.Dense, b []float64) { return f.W, f.B }
