package smo

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/kernel"
)

// Expansion is the kernel expansion f(x) = Σ_i Coef_i · k(SV_i, x) of a dual
// solution, kept over its support vectors only. It is safe for concurrent
// use once built.
type Expansion struct {
	Kernel kernel.Kernel
	// SV holds the support vectors row-major, len(Coef) × D.
	SV   []float64
	Coef []float64
	D    int

	sq []float64 // ‖SV_i‖² for the RBF fast path
}

// NewExpansion keeps the rows of X (n × d) whose coefficient in coef is
// non-zero. coef has length n and is not retained.
func NewExpansion(k kernel.Kernel, X mat.Matrix, coef []float64) *Expansion {
	n, d := X.Dims()
	if len(coef) != n {
		panic("smo: coefficient length differs from the row count")
	}
	e := &Expansion{Kernel: k, D: d}
	row := make([]float64, d)
	for i, c := range coef {
		if c == 0 {
			continue
		}
		rowInto(row, X, i)
		e.SV = append(e.SV, row...)
		e.Coef = append(e.Coef, c)
	}
	e.Init()
	return e
}

// Init precomputes what Eval needs after SV, Coef, D and Kernel were set
// directly (as when decoding a saved model).
func (e *Expansion) Init() {
	e.sq = nil
	if _, ok := e.Kernel.(kernel.RBF); ok {
		e.sq = make([]float64, len(e.Coef))
		for i := range e.sq {
			x := e.sv(i)
			e.sq[i] = dot(x, x)
		}
	}
}

func (e *Expansion) sv(i int) []float64 { return e.SV[i*e.D : (i+1)*e.D : (i+1)*e.D] }

// Len returns the number of support vectors.
func (e *Expansion) Len() int { return len(e.Coef) }

// Eval sets dst[r] = f(x_r) for the rows of X, whose column count must be
// D, and returns dst (resized, or allocated when too short). Rows are split
// over runtime.GOMAXPROCS(0) goroutines.
func (e *Expansion) Eval(dst []float64, X mat.Matrix) []float64 {
	m, d := X.Dims()
	if d != e.D {
		panic("smo: expansion dimension mismatch")
	}
	if cap(dst) < m {
		dst = make([]float64, m)
	}
	dst = dst[:m]
	w := runtime.GOMAXPROCS(0)
	if work := m * len(e.Coef); work < 1<<15 {
		w = 1
	}
	if w > m {
		w = m
	}
	var wg sync.WaitGroup
	chunk := (m + w - 1) / w
	for lo := 0; lo < m; lo += chunk {
		hi := min(lo+chunk, m)
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			x := make([]float64, d)
			for r := lo; r < hi; r++ {
				rowInto(x, X, r)
				dst[r] = e.at(x)
			}
		}(lo, hi)
	}
	wg.Wait()
	return dst
}

func (e *Expansion) at(x []float64) float64 {
	var s float64
	if e.sq != nil {
		g := -e.Kernel.(kernel.RBF).Gamma
		xx := dot(x, x)
		for i, c := range e.Coef {
			d2 := e.sq[i] + xx - 2*dot(e.sv(i), x)
			if d2 < 0 {
				d2 = 0
			}
			s += c * expNeg(g*d2)
		}
		return s
	}
	for i, c := range e.Coef {
		s += c * e.Kernel.Eval(e.sv(i), x)
	}
	return s
}
