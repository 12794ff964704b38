package scale

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// opaque hides a matrix's RawMatrixer, so the stage takes its generic
// path (affine, a call per value) on it.
type opaque struct{ mat.Matrix }

// TestDenseFastPaths: the dense loops of the min-max fit (denseRange) and
// of a centring stage (centre) give what math.Min and math.Max, and the
// copy, per-value map and check of affine and finite, give, bit for bit:
// on normal values, ±0 (whose signs math.Min and math.Max order), values
// near ±MaxFloat64 whose centring overflows (saturated), and a NaN (the
// same *RangeError).
func TestDenseFastPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 9))
	X := mat.NewDense(50, 7, nil)
	for i := range 50 {
		for j := range 7 {
			X.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(j-3)))
		}
	}
	X.Set(3, 0, math.Copysign(0, -1))
	X.Set(4, 0, 0)
	for i := range 50 {
		X.Set(i, 1, math.Copysign(0, float64(i%2)-0.5)) // a column of ±0
	}
	X.Set(5, 6, math.MaxFloat64)
	X.Set(6, 6, -math.MaxFloat64)
	lo, hi := make([]float64, 7), make([]float64, 7)
	for j := range 7 {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
		for i := range 50 {
			lo[j], hi[j] = math.Min(lo[j], X.At(i, j)), math.Max(hi[j], X.At(i, j))
		}
	}
	for _, M := range []mat.Matrix{X, opaque{X}} {
		glo, ghi, err := columnRange(rowsOf(M))
		if err != nil {
			t.Fatal(err)
		}
		for j := range lo {
			if math.Float64bits(glo[j]) != math.Float64bits(lo[j]) || math.Float64bits(ghi[j]) != math.Float64bits(hi[j]) {
				t.Errorf("%T: column %d ranges %v..%v, math.Min and math.Max give %v..%v", M, j, glo[j], ghi[j], lo[j], hi[j])
			}
		}
	}
	for _, rule := range []string{MinMaxRule, Standardize} {
		st, err := Fit(rule, X)
		if err != nil {
			t.Fatal(err)
		}
		Y := mat.DenseCopyOf(X)
		Y.Set(7, 6, -math.MaxFloat64) // and rows past the training range
		Y.Set(8, 0, math.MaxFloat64)  // 10⁻³ units: past the range, saturated
		fast, err := st.ApplyInto(nil, Y)
		if err != nil {
			t.Fatal(err)
		}
		slow, err := st.ApplyInto(nil, opaque{Y})
		if err != nil {
			t.Fatal(err)
		}
		if v := fast.At(8, 0); v != math.MaxFloat64 {
			t.Fatalf("%s: MaxFloat64 in a column of 10⁻³ units scaled to %v, want it saturated", rule, v)
		}
		f, s := fast.(*mat.Dense).RawMatrix().Data, slow.(*mat.Dense).RawMatrix().Data
		for k := range f {
			if math.Float64bits(f[k]) != math.Float64bits(s[k]) {
				t.Fatalf("%s: value %d scaled to %v on the dense path, %v on the generic one", rule, k, f[k], s[k])
			}
		}
		Y.Set(9, 2, math.NaN())
		_, err1 := st.ApplyInto(nil, Y)
		_, err2 := st.ApplyInto(nil, opaque{Y})
		var r1, r2 *RangeError
		if !errors.As(err1, &r1) || !errors.As(err2, &r2) || *r1 != *r2 {
			t.Errorf("%s: a NaN: %v on the dense path, %v on the generic one", rule, err1, err2)
		}
	}
}

// Standard's dense fit (loops over each chunk's rows) gives the stage of
// the per-value passes it replaced bit for bit: the reference below is
// that code (maxAbs, then columnStats for the sum in units and for the
// squares about the mean), on columns of ordinary, huge (near
// MaxFloat64), tiny and constant values, fed in uneven chunks.
func TestStandardDenseBitForBit(t *testing.T) {
	const n, c = 1003, 5
	rng := rand.New(rand.NewPCG(7, 8))
	X := mat.NewDense(n, c, nil)
	for i := range n {
		X.Set(i, 0, rng.NormFloat64()*3+10)
		X.Set(i, 1, rng.NormFloat64()*1e307)
		X.Set(i, 2, rng.NormFloat64()*1e-300)
		X.Set(i, 3, 4.25)
		X.Set(i, 4, rng.ExpFloat64()-1)
	}
	rs := Rows{Cols: c, Pass: func(fn func(X mat.Matrix) error) error {
		for lo := 0; lo < n; lo += 97 {
			if err := fn(X.Slice(lo, min(n, lo+97), 0, c)); err != nil {
				return err
			}
		}
		return nil
	}}
	var got, viaAt Standard
	if err := got.fit(rs); err != nil {
		t.Fatal(err)
	}
	// Chunks without RawMatrix (read through mat.Row) give the same.
	opaqueRows := Rows{Cols: c, Pass: func(fn func(X mat.Matrix) error) error {
		return rs.Pass(func(X mat.Matrix) error { return fn(opaque{X}) })
	}}
	if err := viaAt.fit(opaqueRows); err != nil {
		t.Fatal(err)
	}
	for j := range c {
		if math.Float64bits(viaAt.Mean[j]) != math.Float64bits(got.Mean[j]) || math.Float64bits(viaAt.Std[j]) != math.Float64bits(got.Std[j]) {
			t.Errorf("column %d: chunks without RawMatrix give mean %v std %v, with it %v and %v", j+1, viaAt.Mean[j], viaAt.Std[j], got.Mean[j], got.Std[j])
		}
	}
	// The reference: the per-value passes.
	amax, err := maxAbs(rs)
	if err != nil {
		t.Fatal(err)
	}
	unit := powerUnits(amax)
	sum := make([]float64, c)
	cnt, _, err := columnStats(rs, func(j int, v float64) { sum[j] += v / unit[j] })
	if err != nil {
		t.Fatal(err)
	}
	mean := make([]float64, c)
	for j := range sum {
		mean[j] = sum[j] / float64(cnt)
	}
	ss := make([]float64, c)
	columnStats(rs, func(j int, v float64) {
		d := v/unit[j] - mean[j]
		ss[j] += d * d
	})
	for j := range c {
		std := math.Sqrt(ss[j]/float64(cnt)) * unit[j]
		if std == 0 {
			std = 1
		}
		if m := mean[j] * unit[j]; math.Float64bits(got.Mean[j]) != math.Float64bits(m) || math.Float64bits(got.Std[j]) != math.Float64bits(std) {
			t.Errorf("column %d: mean %v std %v, per-value passes %v and %v", j+1, got.Mean[j], got.Std[j], m, std)
		}
	}
}
