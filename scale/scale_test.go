package scale

import (
	"math"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

type golden struct {
	Train, Test [][]float64
	Scalers     map[string]struct{ Train, Test [][]float64 }
}

func TestScalersMatchScikitLearn(t *testing.T) {
	g := testmat.Golden[golden](t, "golden_scalers.json") // testdata/golden_scalers.py, scikit-learn 1.2.1
	train, test := testmat.Dense(g.Train), testmat.Dense(g.Test)
	for name, s := range map[string]func() Scaler{
		"minmax":            func() Scaler { return &MinMax{} },
		"standard":          func() Scaler { return &Standard{} },
		"standard_nocenter": func() Scaler { return &Standard{NoCenter: true} },
		"maxabs":            func() Scaler { return &MaxAbs{} },
		"robust":            func() Scaler { return &Robust{} },
		"robust_nocenter":   func() Scaler { return &Robust{NoCenter: true} },
	} {
		want := g.Scalers[name]
		for _, input := range []string{"dense", "csr"} {
			var tr, te mat.Matrix = train, test
			if input == "csr" {
				tr, te = testmat.CSR(train), testmat.CSR(test)
			}
			sc := s()
			if err := sc.Fit(tr); err != nil {
				t.Fatal(err)
			}
			for _, part := range []struct {
				X    mat.Matrix
				want [][]float64
			}{{tr, want.Train}, {te, want.Test}} {
				var got mat.Dense
				if err := sc.Transform(&got, part.X); err != nil {
					t.Fatal(err)
				}
				// 1e-15: the same formula as scikit-learn up to rounding.
				if !mat.EqualApprox(&got, testmat.Dense(part.want), 1e-15) {
					t.Errorf("%s %s: got\n%v\nwant %v", name, input, mat.Formatted(&got), part.want)
				}
			}
		}
	}
}

// Where more than half a column's values are equal the IQR is 0: Robust
// falls back to the population standard deviation (scikit-learn would
// divide by 1), and to 1 for a constant column.
func TestRobustFallsBackToStd(t *testing.T) {
	X := mat.NewDense(5, 2, []float64{
		1, 3,
		1, 3,
		1, 3,
		1, 3,
		6, 3,
	})
	var r Robust
	if err := r.Fit(X); err != nil {
		t.Fatal(err)
	}
	// Column 0: values 1,1,1,1,6, mean 2, population variance
	// (4·1 + 16)/5 = 4, std 2; median 1.
	if r.Median[0] != 1 || r.Spread[0] != 2 || r.Median[1] != 3 || r.Spread[1] != 1 {
		t.Errorf("median %v, spread %v; want [1 3], [2 1]", r.Median, r.Spread)
	}
}

// Columns measured in units of 1e±300 are standardised without overflow
// or underflow: the power-of-two prescaling in Standard.Fit.
func TestStandardExtremeUnits(t *testing.T) {
	for _, unit := range []float64{1e300, 1e-300, 1e-310} {
		X := mat.NewDense(4, 1, []float64{1 * unit, 2 * unit, 3 * unit, 4 * unit})
		var s Standard
		if err := s.Fit(X); err != nil {
			t.Fatal(err)
		}
		// mean 2.5·unit, std √1.25·unit
		if m, sd := s.Mean[0]/unit, s.Std[0]/unit; math.Abs(m-2.5) > 1e-12 || math.Abs(sd-math.Sqrt(1.25)) > 1e-9 {
			t.Errorf("unit %g: mean %g·unit, std %g·unit; want 2.5, %g", unit, m, sd, math.Sqrt(1.25))
		}
		st, err := Fit(Standardize, X)
		if err != nil {
			t.Fatalf("unit %g: %v", unit, err)
		}
		out, err := st.Apply(X)
		if err != nil {
			t.Fatalf("unit %g: %v", unit, err)
		}
		if v := out.At(3, 0); math.Abs(v-1.5/math.Sqrt(1.25)) > 1e-9 {
			t.Errorf("unit %g: scaled value %v, want %v", unit, v, 1.5/math.Sqrt(1.25))
		}
	}
}

func TestScaleKeepsSparse(t *testing.T) {
	// Non-negative data: every column has minimum 0, so MinMax is x/max.
	X := testmat.CSR(mat.NewDense(3, 3, []float64{0, 2, 0, 4, 0, 0, 2, 1, 0}))
	for _, s := range []Scaler{&MinMax{}, &MaxAbs{}, &Standard{NoCenter: true}, &Robust{NoCenter: true}} {
		tr, te, err := Scale(s, X, X)
		if err != nil {
			t.Fatalf("%T: %v", s, err)
		}
		for _, m := range []mat.Matrix{tr, te} {
			sp, ok := m.(*sparse.CSR)
			if !ok || sp.NNZ() != X.NNZ() {
				t.Errorf("%T: result %T is not sparse with %d non-zeros", s, m, X.NNZ())
			}
		}
	}
	// MinMax of column 1 of the CSR: max 2 → 2/2 = 1, 1/2 = 0.5.
	tr, _, _ := Scale(&MinMax{}, X, nil)
	if tr.At(0, 1) != 1 || tr.At(2, 1) != 0.5 || tr.At(1, 0) != 1 {
		t.Errorf("MinMax sparse: %v", mat.Formatted(tr))
	}
	neg := testmat.CSR(mat.NewDense(2, 1, []float64{-1, 0}))
	if _, _, err := Scale(&MinMax{}, testmat.CSR(mat.NewDense(2, 1, []float64{1, 2})), neg); err == nil {
		t.Error("MinMax of a column with minimum 1 kept sparse: want an error")
	}
	if _, _, err := Scale(&Standard{}, X, nil); err == nil {
		t.Error("centering sparse data: want an error")
	}
	var dst mat.Dense
	if err := (&MinMax{}).Transform(&dst, X); err == nil {
		t.Error("Transform before Fit: want an error")
	}
	s := &MinMax{}
	s.Fit(X)
	if err := s.Transform(&dst, mat.NewDense(1, 2, nil)); err == nil {
		t.Error("wrong column count: want an error")
	}
}

// The stage fitted on sparse input does not centre, so it keeps sparse
// input sparse and maps dense input the same way.
func TestStageSparse(t *testing.T) {
	D := mat.NewDense(3, 2, []float64{0, 2, 4, 0, 2, 1})
	X := testmat.CSR(D)
	for _, rule := range Rules {
		st, err := Fit(rule, X)
		if err != nil {
			t.Fatal(err)
		}
		if rule != None && st.Offset != nil {
			t.Errorf("%s: a stage fitted on sparse data centres", rule)
		}
		a, err := st.Apply(X)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := a.(*sparse.CSR); !ok {
			t.Errorf("%s: sparse input came out %T", rule, a)
		}
		b, err := st.Apply(D)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(a, b, 1e-15) {
			t.Errorf("%s: sparse and dense input scale differently", rule)
		}
	}
}

// A value that scaling sends beyond the float64 range is a RangeError
// naming its row and column.
// A value scaled past float64's range (1e300 in training spreads of
// 1e-300) saturates at ±MaxFloat64, so the row scores as far as float64
// can say; a non-finite value is a RangeError naming it.
func TestStageRangeError(t *testing.T) {
	st, err := Fit(Standardize, mat.NewDense(2, 1, []float64{0, 1e-300}))
	if err != nil {
		t.Fatal(err)
	}
	Y, err := st.Apply(mat.NewDense(3, 1, []float64{0, 1e300, -1e300}))
	if err != nil {
		t.Fatal(err)
	}
	if y := Y.(*mat.Dense).RawMatrix().Data; y[1] != math.MaxFloat64 || y[2] != -math.MaxFloat64 {
		t.Errorf("scaled %v, want ±MaxFloat64 for the far values", y)
	}
	_, err = st.Apply(mat.NewDense(2, 1, []float64{0, math.Inf(1)}))
	re, ok := err.(*RangeError)
	if !ok || re.Row != 1 || re.Col != 0 {
		t.Fatalf("got %v, want a RangeError at row 2, column 1", err)
	}
}

// TestStageNearMaxFloat: training values near both ±MaxFloat64 are
// scaled into range by every rule (the offset subtraction, the minmax
// range, the robust quartiles' interpolation and the channel moments all
// overflowed, and the stage refused its own training rows), and a stage
// fitted on ordinary data leaves them as before.
func TestStageNearMaxFloat(t *testing.T) {
	for _, X := range []*mat.Dense{
		mat.NewDense(4, 2, []float64{-1.7e308, 1, 1e308, 2, 1e308, 3, 1e308, 4}),
		mat.NewDense(4, 2, []float64{-1e308, 1, -1e308, 2, 1e308, 3, 1e308, 4}),
		mat.NewDense(4, 2, []float64{1e154, -3e154, 2e154, 1e154, -1e154, 2e154, 5e153, -2e154}),
	} {
		for _, rule := range []string{Standardize, RobustRule, MinMaxRule, ChannelRule} {
			st, err := FitShape(rule, X, []int{2, 1})
			if err != nil {
				t.Fatalf("%s: %v", rule, err)
			}
			Y, err := st.Apply(X)
			if err != nil {
				t.Fatalf("%s on %v: %v", rule, X.RawMatrix().Data, err)
			}
			for _, v := range Y.(*mat.Dense).RawMatrix().Data {
				if math.IsInf(v, 0) || math.IsNaN(v) || math.Abs(v) > 4 {
					t.Errorf("%s: scaled values %v", rule, Y.(*mat.Dense).RawMatrix().Data)
					break
				}
			}
		}
	}
}

// A stage fitted on sparse data with more columns than non-zeros keeps
// only the touched columns (Index), and its divisors are those of the same
// rule fitted without centring on the dense matrix of those columns, zeros
// included; untouched columns are left as they are.
func TestCompactStage(t *testing.T) {
	const n, d = 4, 1000
	b := csr.NewBuilder(d)
	rows := [][2][]float64{
		{{3, 900}, {1, 2}},
		{{3}, {3}},
		{{}, {}},
		{{900}, {-4}},
	}
	for _, r := range rows {
		ind := make([]int, len(r[0]))
		for k, v := range r[0] {
			ind[k] = int(v)
		}
		if err := b.AddRow(ind, r[1]); err != nil {
			t.Fatal(err)
		}
	}
	X := b.Build(d)
	for _, rule := range []string{Standardize, RobustRule, MinMaxRule} {
		st, err := Fit(rule, X)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Index) != 2 || st.Cols() != d || st.Offset != nil {
			t.Fatalf("%s: index %v, %d columns, offset %v; want [3 900], %d, nil", rule, st.Index, st.Cols(), st.Offset, d)
		}
		// The same stage fitted on the 4 × 2 dense matrix of the touched
		// columns (zeros included), without centring.
		dense := mat.NewDense(n, 2, []float64{1, 2, 3, 0, 0, 0, 0, -4})
		ref := Stage{Rule: rule}
		switch rule {
		case Standardize:
			sc := Standard{NoCenter: true}
			sc.Fit(dense)
			ref.Divisor = sc.Std
		case RobustRule:
			sc := Robust{NoCenter: true}
			sc.Fit(dense)
			ref.Divisor = sc.Spread
		case MinMaxRule:
			lo, hi, _ := columnRange(rowsOf(dense))
			ref.Divisor = []float64{hi[0] - lo[0], hi[1] - lo[1]}
		}
		for k := range ref.Divisor {
			if ref.Divisor[k] != st.Divisor[k] {
				t.Errorf("%s: divisor of column %d is %v, want %v", rule, st.Index[k], st.Divisor[k], ref.Divisor[k])
			}
		}
		out, err := st.Apply(X)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := out.At(0, 900), 2/ref.Divisor[1]; got != want {
			t.Errorf("%s: scaled (0, 900) = %v, want %v", rule, got, want)
		}
		if err := st.Check(d); err != nil {
			t.Errorf("%s: %v", rule, err)
		}
		if err := st.Check(d + 1); err == nil {
			t.Errorf("%s: a stage of %d columns passed the check for %d", rule, d, d+1)
		}
	}
}

// Rule channel pools each first-mode index of the samples: for samples of
// shape 2 × 3 the channel-0 entries of the two rows below are 1…6 (mean
// 3.5, population variance 35/12) and the channel-1 entries are 10·(1…6)
// (mean 35, variance 3500/12); every entry of a channel shares them.
// Without a shape it is rule standard.
func TestChannelStage(t *testing.T) {
	X := mat.NewDense(2, 6, []float64{
		1, 2, 3, 10, 20, 30,
		4, 5, 6, 40, 50, 60,
	})
	st, err := FitShape(ChannelRule, X, []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 6; j++ {
		mean, sd := 3.5, math.Sqrt(35.0/12)
		if j >= 3 {
			mean, sd = 35, math.Sqrt(3500.0/12)
		}
		if math.Abs(st.Offset[j]-mean) > 1e-12*mean || math.Abs(st.Divisor[j]-sd) > 1e-12*sd {
			t.Errorf("column %d: offset %v divisor %v, want %v and %v", j, st.Offset[j], st.Divisor[j], mean, sd)
		}
	}
	if _, err := FitShape(ChannelRule, X, []int{4, 2}); err == nil {
		t.Error("a shape of 8 values on 6 columns: no error")
	}
	plain, err := Fit(ChannelRule, X)
	if err != nil {
		t.Fatal(err)
	}
	std, _ := Fit(Standardize, X)
	for j := range plain.Divisor {
		if plain.Divisor[j] != std.Divisor[j] || plain.Offset[j] != std.Offset[j] {
			t.Fatalf("channel without a shape differs from standard at column %d", j)
		}
	}
}
