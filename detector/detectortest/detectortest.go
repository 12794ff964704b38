package detectortest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/james-bowman/sparse"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/eval"
	"github.com/kernelad/anomaly/scale"
	"github.com/kernelad/anomaly/tensor"
)

// Options describes a method to the suite.
type Options struct {
	// Random says the method's output depends on its seed parameter; the
	// suite then sets seed=1 and seed=2 and requires different scores.
	Random bool
	// AUCFloor is the smallest acceptable AUC-ROC on the held-out half of
	// the synthetic set. 0 skips the AUC check (say why in the test).
	AUCFloor float64
	// Data picks the synthetic set: "" or "gaussian" for
	// dataset.GaussianMixture (Rows training + Rows test rows, Features
	// columns), "banana" for dataset.Banana (2 columns).
	Data string
	// Rows is the number of training rows (default 200); the AUC test set
	// has as many.
	Rows int
	// Features is the column count of the synthetic set (default 4). When
	// Shape is set it is the product of Shape.
	Features int
	// Shape is the sample shape of a tensor method (e.g. {4, 3}): rows are
	// vectorised samples of this shape, and the suite passes
	// shape=4x3 unless Params already hold it.
	Shape []int
	// Contamination is the rate passed as contamination= (default 0.1).
	Contamination float64
	// Config, when not nil, returns the detector's configuration as a
	// value; Fit must leave it unchanged. It is compared through its %#v
	// rendering: values (numbers, strings, slices, maps, nested structs)
	// deeply, pointers, interfaces holding pointers (a rand.Source) and
	// funcs by address — a seeded source is consumed by a fit by design.
	Config func(d detector.Detector) any
	// Cancel sets up the long fit of the Cancel check.
	Cancel Cancel
	// Refit sets up the refit of the Transaction check: Rows × Cols rows
	// of dataset.GaussianMixture with Params merged over the suite's
	// (default 2,000 rows of the suite's columns). A fit of a few hundred
	// milliseconds gives deadlines inside every stage.
	Refit Cancel
	// AffineParams are merged over the parameters in the Affine check: an
	// iterative solver's tolerance tightened so that two fits on data that
	// agree to rounding end at the same solution, not anywhere within the
	// default tolerance of it.
	AffineParams map[string]string
	// Skip maps a check name to the reason it does not apply; the check
	// is reported as skipped with that reason.
	Skip map[string]string
	// Memory sets up the fit and score of the Memory check (default 2,000
	// rows of the suite's columns with the suite's parameters).
	Memory Memory
	// Known maps a check name to a known, reported failure of the method
	// (what fails and why). The check is skipped with "KNOWN FAILURE: …"
	// so make test stays green while the owner fixes it; with
	// ANOMALY_STRICT=1 in the environment it runs (and fails) instead.
	Known map[string]string
}

// Cancel is a fit that takes well over a second: Rows × Cols rows of
// dataset.GaussianMixture with Params merged over the suite's parameters.
type Cancel struct {
	Rows, Cols int
	Params     map[string]string
	// ScoreRows is the number of rows the Latency check scores (the
	// fit's rows repeated; default Rows): enough for a Score of well
	// over a second.
	ScoreRows int
}

// CheckNames lists the suite's checks in the order they run.
var CheckNames = []string{
	"Shapes", "Predict", "Contamination", "Duplicates", "ConfigUnchanged", "Seed",
	"GenericMatrix", "DimError", "NonFinite", "FarRows", "NotFitted", "Concurrent",
	"Cancel", "Transaction", "Progress", "Latency", "Memory", "SaveLoad", "Defaults", "Affine", "Sparse", "AUC",
}

// suite holds what the checks share: the method, its parameters and the
// synthetic data.
type suite struct {
	name   string
	params map[string]string
	opts   Options
	train  *mat.Dense
	test   *mat.Dense
	yTest  []int
	c      float64
}

// Run runs every check for the registered method name built with params
// (plus contamination, seed and shape as Options ask). Each check is a
// subtest named as in CheckNames.
func Run(t *testing.T, name string, params map[string]string, opts Options) {
	t.Helper()
	if _, ok := detector.Lookup(name); !ok {
		t.Fatalf("method %q is not registered (have %v)", name, detector.Names())
	}
	s := &suite{name: name, opts: opts, params: maps.Clone(params)}
	if s.params == nil {
		s.params = map[string]string{}
	}
	if opts.Rows == 0 {
		s.opts.Rows = 200
	}
	if opts.Features == 0 {
		s.opts.Features = 4
	}
	if len(opts.Shape) > 0 {
		f := 1
		for _, k := range opts.Shape {
			f *= k
		}
		s.opts.Features = f
		if _, ok := s.params["shape"]; !ok {
			s.params["shape"] = tensor.FormatShape(opts.Shape)
		}
	}
	s.c = opts.Contamination
	if s.c == 0 {
		s.c = method.DefaultContamination
	}
	if _, ok := s.params["contamination"]; !ok {
		s.params["contamination"] = strconv.FormatFloat(s.c, 'g', -1, 64)
	}
	if opts.Random {
		if _, ok := s.params["seed"]; !ok {
			s.params["seed"] = "1"
		}
	}
	s.train, s.test, s.yTest = s.data(s.opts.Rows)

	checks := map[string]func(*testing.T){
		"Shapes":          s.shapes,
		"Predict":         s.predict,
		"Contamination":   s.contamination,
		"Duplicates":      s.duplicates,
		"ConfigUnchanged": s.configUnchanged,
		"Seed":            s.seed,
		"GenericMatrix":   s.genericMatrix,
		"DimError":        s.dimError,
		"NonFinite":       s.nonFinite,
		"FarRows":         s.farRows,
		"NotFitted":       s.notFitted,
		"Concurrent":      s.concurrent,
		"Cancel":          s.cancel,
		"Transaction":     s.transaction,
		"Progress":        s.progressCheck,
		"Latency":         s.latency,
		"Memory":          s.memory,
		"SaveLoad":        s.saveLoad,
		"Defaults":        s.defaults,
		"Affine":          s.affine,
		"Sparse":          s.sparse,
		"AUC":             s.auc,
	}
	for _, c := range CheckNames {
		t.Run(c, func(t *testing.T) {
			if why, ok := opts.Skip[c]; ok {
				t.Skip(why)
			}
			if why, ok := opts.Known[c]; ok && os.Getenv("ANOMALY_STRICT") != "1" {
				t.Skip("KNOWN FAILURE (run with ANOMALY_STRICT=1): " + why)
			}
			checks[c](t)
		})
	}
}

// data returns n seeded training rows (contaminated at rate c) and n test
// rows with labels, drawn in one call so both halves share the clusters.
func (s *suite) data(n int) (train, test *mat.Dense, yTest []int) {
	src := rand.NewPCG(20261122, 7)
	var ds *dataset.Dataset
	switch s.opts.Data {
	case "", "gaussian":
		ds = dataset.GaussianMixture(2*n, s.opts.Features, s.c, src)
	case "banana":
		ds = dataset.Banana(2*n, s.c, src)
	default:
		panic("detectortest: unknown Options.Data " + s.opts.Data)
	}
	X := mat.DenseCopyOf(ds.X)
	_, d := X.Dims()
	train = mat.DenseCopyOf(X.Slice(0, n, 0, d))
	test = mat.DenseCopyOf(X.Slice(n, 2*n, 0, d))
	return train, test, ds.Y[n:]
}

// newDet builds an unfitted detector from the suite's parameters with
// extra merged over them.
func (s *suite) newDet(t *testing.T, extra map[string]string) (detector.Detector, map[string]string) {
	t.Helper()
	p := maps.Clone(s.params)
	maps.Copy(p, extra)
	d, err := detector.New(s.name, p)
	if err != nil {
		t.Fatalf("detector.New(%q, %v): %v", s.name, p, err)
	}
	return d, p
}

// fitted returns a detector fitted on the training rows.
func (s *suite) fitted(t *testing.T, extra map[string]string) detector.Detector {
	t.Helper()
	d, p := s.newDet(t, extra)
	if err := d.Fit(context.Background(), s.train); err != nil {
		t.Fatalf("Fit(%v) on %d×%d: %v", p, s.opts.Rows, s.opts.Features, err)
	}
	return d
}

func mustScore(t *testing.T, d detector.Detector, X mat.Matrix) []float64 {
	t.Helper()
	sc, err := d.Score(nil, X)
	if err != nil {
		t.Fatalf("Score: %v", err)
	}
	return sc
}

func (s *suite) shapes(t *testing.T) {
	d := s.fitted(t, nil)
	n, _ := s.test.Dims()
	sc := mustScore(t, d, s.test)
	if len(sc) != n {
		t.Fatalf("Score returned %d scores for %d rows", len(sc), n)
	}
	for i, v := range sc {
		if math.IsNaN(v) {
			t.Fatalf("score %d is NaN", i)
		}
	}
	dst := make([]float64, 1, n+3)
	got, err := d.Score(dst, s.test)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n || &got[0] != &dst[:1][0] {
		t.Errorf("Score(dst with capacity %d) returned len %d, reused dst: %v", cap(dst), len(got), &got[0] == &dst[:1][0])
	}
	if !reflect.DeepEqual(got, sc) {
		t.Errorf("Score into a reused dst differs from Score(nil, X)")
	}
	long := make([]float64, n+5)
	got, err = d.Score(long, s.test)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Errorf("Score(dst of len %d) returned len %d, want %d", len(long), len(got), n)
	}
	_, cols := s.test.Dims()
	one, err := d.Score(nil, s.test.Slice(3, 4, 0, cols))
	if err != nil {
		t.Fatalf("Score of one row: %v", err)
	}
	if len(one) != 1 {
		t.Fatalf("Score of one row returned %d scores", len(one))
	}
	if !near(one[0], sc[3], 1e-12) {
		t.Errorf("row 3 scored alone: %v; in the batch: %v", one[0], sc[3])
	}
}

// near reports |a−b| ≤ tol·max(1, |a|, |b|), or a == b (infinities).
func near(a, b, tol float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

func (s *suite) predict(t *testing.T) {
	d := s.fitted(t, nil)
	thr := d.Threshold()
	if math.IsNaN(thr) {
		t.Fatal("Threshold is NaN")
	}
	for _, X := range []*mat.Dense{s.train, s.test} {
		sc := mustScore(t, d, X)
		lab, err := detector.Predict(context.Background(), nil, d, X)
		if err != nil {
			t.Fatal(err)
		}
		if len(lab) != len(sc) {
			t.Fatalf("Predict returned %d labels for %d scores", len(lab), len(sc))
		}
		for i := range sc {
			if want := sc[i] > thr; (lab[i] == 1) != want || (lab[i] != 0 && lab[i] != 1) {
				t.Fatalf("row %d: label %d, score %v, threshold %v", i, lab[i], sc[i], thr)
			}
		}
	}
}

// FlaggedBounds returns the range the number of training rows flagged must
// lie in for scores sc at contamination c: [⌊c·n⌋ − t, ⌈c·n⌉ + t], t the
// ties at the quantile's neighbouring order statistics (see the package
// documentation), clamped to 0..n.
func FlaggedBounds(sc []float64, c float64) (lo, hi, ties int) {
	s := append([]float64(nil), sc...)
	sort.Float64s(s)
	n := len(s)
	pos := (1 - c) * float64(n-1)
	ilo := int(math.Floor(pos))
	ihi := min(ilo+1, n-1)
	vals := map[float64]bool{s[ilo]: true, s[ihi]: true}
	cnt := 0
	for _, v := range s {
		if vals[v] {
			cnt++
		}
	}
	ties = cnt - len(vals)
	cn := c * float64(n)
	return max(0, int(math.Floor(cn))-ties), min(n, int(math.Ceil(cn))+ties), ties
}

// Fitted returns a detector of the method name with params, fitted on
// X, failing tb when New or Fit fails.
func Fitted(tb testing.TB, name string, params map[string]string, X mat.Matrix) detector.Detector {
	tb.Helper()
	d, err := detector.New(name, params)
	if err != nil {
		tb.Fatal(err)
	}
	if err := d.Fit(context.Background(), X); err != nil {
		tb.Fatal(err)
	}
	return d
}

// FitsAlike fits a on X and b from src (the same rows, read a chunk at
// a time as from a file) and reports whether detector.Save writes the
// same bytes for both, failing tb when a fit or a save fails.
func FitsAlike(tb testing.TB, a, b detector.Detector, X mat.Matrix, src detector.Source) bool {
	tb.Helper()
	if err := a.Fit(context.Background(), X); err != nil {
		tb.Fatalf("Fit: %v", err)
	}
	if err := detector.FitSource(context.Background(), b, src); err != nil {
		tb.Fatalf("FitSource: %v", err)
	}
	var sa, sb bytes.Buffer
	if err := detector.Save(&sa, a); err != nil {
		tb.Fatalf("Save: %v", err)
	}
	if err := detector.Save(&sb, b); err != nil {
		tb.Fatalf("Save: %v", err)
	}
	return bytes.Equal(sa.Bytes(), sb.Bytes())
}

// ScoresDecoded scores the rows of Q with score, the Score of a model a
// fuzzed state decoded into, and fails tb on an error or a NaN score: a
// state that decodes must score (a crafted one is refused by the
// decoder, never met later).
func ScoresDecoded(tb testing.TB, score func(ctx context.Context, dst []float64, X mat.Matrix) error, Q mat.Matrix) {
	tb.Helper()
	n, _ := Q.Dims()
	dst := make([]float64, n)
	if err := score(context.Background(), dst, Q); err != nil {
		tb.Fatalf("Score of a decoded model: %v", err)
	}
	for _, v := range dst {
		if math.IsNaN(v) {
			tb.Fatalf("Score of a decoded model gave NaN: %v", dst)
		}
	}
}

// FittedState fits d on X and returns its model's state (MarshalBinary,
// what a model file holds for it): a real state to start a fuzz corpus
// from. It fails tb when the fit or the encoding fails.
func FittedState[M method.Model](tb testing.TB, d interface {
	Fit(ctx context.Context, X mat.Matrix) error
	Model() (M, bool)
}, X mat.Matrix) []byte {
	tb.Helper()
	if err := d.Fit(context.Background(), X); err != nil {
		tb.Fatalf("Fit: %v", err)
	}
	m, _ := d.Model()
	b, err := m.MarshalBinary()
	if err != nil {
		tb.Fatalf("MarshalBinary: %v", err)
	}
	return b
}

// Reload saves d with detector.Save and loads it back with detector.Load,
// as a model file would carry it, failing tb when either step fails. The
// methods' own save/load tests compare what they need on the result.
func Reload(tb testing.TB, d detector.Detector) detector.Detector {
	tb.Helper()
	var buf bytes.Buffer
	if err := detector.Save(&buf, d); err != nil {
		tb.Fatalf("Save: %v", err)
	}
	e, err := detector.Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		tb.Fatalf("Load of a just-saved model: %v", err)
	}
	return e
}

func (s *suite) contamination(t *testing.T) {
	d := s.fitted(t, nil)
	sc := mustScore(t, d, s.train)
	thr := d.Threshold()
	flagged := 0
	for _, v := range sc {
		if v > thr {
			flagged++
		}
	}
	lo, hi, ties := FlaggedBounds(sc, s.c)
	if flagged < lo || flagged > hi {
		t.Errorf("%d of %d training rows flagged at contamination %v; want %d..%d (%d ties); threshold %v",
			flagged, len(sc), s.c, lo, hi, ties, thr)
	}
}

// duplicates fits on training rows that are one row (each of the first
// ten in turn) repeated but for
// ⌊c·n/2⌋ of them, and on n copies of one row, and scores those rows: the
// copies tie, so they are all flagged or none, and at most ⌈c·n⌉ rows may
// be. Methods whose training scores came from another computation than
// Score flagged every copy, the rounding of either sign putting them above
// a threshold set on one of them.
func (s *suite) duplicates(t *testing.T) {
	n, d := s.train.Dims()
	k := int(math.Floor(s.c * float64(n) / 2))
	for _, distinct := range []int{k, 0} {
		for r := 0; r < 10; r++ {
			X := mat.DenseCopyOf(s.train)
			for i := 0; i < n-distinct; i++ {
				X.SetRow(i, s.train.RawRowView(r))
			}
			det, _ := s.newDet(t, nil)
			if err := det.Fit(context.Background(), X); err != nil {
				t.Fatalf("Fit on %d copies of one row and %d others: %v", n-distinct, distinct, err)
			}
			sc := mustScore(t, det, X)
			thr := det.Threshold()
			flagged := 0
			for _, v := range sc {
				if v > thr {
					flagged++
				}
			}
			if most := int(math.Ceil(s.c * float64(n))); flagged > most {
				t.Errorf("%d copies of one row and %d others (%d columns): scoring them flags %d rows, at most %d at contamination %v; the copies score %v, threshold %v",
					n-distinct, distinct, d, flagged, most, s.c, sc[0], thr)
			}
		}
	}
}

func (s *suite) configUnchanged(t *testing.T) {
	d, p := s.newDet(t, nil)
	before := maps.Clone(p)
	var cfgBefore string
	if s.opts.Config != nil {
		cfgBefore = fmt.Sprintf("%#v", s.opts.Config(d))
	}
	if err := d.Fit(context.Background(), s.train); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, p) {
		t.Errorf("Fit changed the parameter map: %v → %v", before, p)
	}
	if s.opts.Config == nil {
		t.Log("no Options.Config: only the parameter map was compared")
		return
	}
	if after := fmt.Sprintf("%#v", s.opts.Config(d)); after != cfgBefore {
		t.Errorf("Fit changed the Config:\nbefore %s\nafter  %s", cfgBefore, after)
	}
}

func (s *suite) seed(t *testing.T) {
	a := s.fitted(t, nil)
	b := s.fitted(t, nil)
	sa, sb := mustScore(t, a, s.test), mustScore(t, b, s.test)
	if !reflect.DeepEqual(sa, sb) || a.Threshold() != b.Threshold() {
		t.Errorf("same parameters %v, different results (threshold %v vs %v)", s.params, a.Threshold(), b.Threshold())
	}
	if !s.opts.Random {
		return
	}
	c := s.fitted(t, map[string]string{"seed": "2"})
	if reflect.DeepEqual(sa, mustScore(t, c, s.test)) {
		t.Errorf("seed 1 and seed 2 give identical scores; is the seed used?")
	}
}

// plainMatrix hides every optional interface of the matrix it wraps.
type plainMatrix struct{ m mat.Matrix }

func (p plainMatrix) Dims() (int, int)    { return p.m.Dims() }
func (p plainMatrix) At(i, j int) float64 { return p.m.At(i, j) }
func (p plainMatrix) T() mat.Matrix       { return mat.Transpose{Matrix: p} }

func (s *suite) genericMatrix(t *testing.T) {
	a := s.fitted(t, nil)
	b, _ := s.newDet(t, nil)
	if err := b.Fit(context.Background(), plainMatrix{s.train}); err != nil {
		t.Fatalf("Fit on a generic mat.Matrix: %v", err)
	}
	sa := mustScore(t, a, s.test)
	sb, err := b.Score(nil, plainMatrix{s.test})
	if err != nil {
		t.Fatalf("Score of a generic mat.Matrix: %v", err)
	}
	for i := range sa {
		if !near(sa[i], sb[i], 1e-12) {
			t.Fatalf("row %d: dense %v, generic %v", i, sa[i], sb[i])
		}
	}
}

func (s *suite) dimError(t *testing.T) {
	d := s.fitted(t, nil)
	n, c := s.test.Dims()
	for _, cols := range []int{c + 1, c - 1} {
		if cols < 1 {
			continue
		}
		X := mat.NewDense(n, cols, nil)
		_, err := d.Score(nil, X)
		var de *detector.DimError
		if !errors.As(err, &de) {
			t.Errorf("Score with %d columns (fitted on %d): error %v, want a *detector.DimError", cols, c, err)
			continue
		}
		if de.Got != cols || de.Want != c {
			t.Errorf("DimError{Got: %d, Want: %d}, want {%d, %d}", de.Got, de.Want, cols, c)
		}
	}
}

func (s *suite) nonFinite(t *testing.T) {
	fitted := s.fitted(t, nil)
	n, c := s.train.Dims()
	for _, tc := range []struct {
		v        float64
		row, col int
	}{
		{math.NaN(), 3, c - 1},
		{math.Inf(1), n - 1, 0},
		{math.Inf(-1), 0, c / 2},
	} {
		X := mat.DenseCopyOf(s.train)
		X.Set(tc.row, tc.col, tc.v)
		d, _ := s.newDet(t, nil)
		for _, op := range []struct {
			name string
			run  func() error
		}{
			{"Fit", func() error { return d.Fit(context.Background(), X) }},
			{"Score", func() error { _, err := fitted.Score(nil, X); return err }},
		} {
			err := op.run()
			var ve *detector.ValueError
			if !errors.As(err, &ve) {
				t.Errorf("%s with %v at row %d, column %d: error %v, want a *detector.ValueError", op.name, tc.v, tc.row, tc.col, err)
				continue
			}
			if ve.Row != tc.row || ve.Col != tc.col {
				t.Errorf("%s: ValueError names row %d, column %d; the %v is at %d, %d", op.name, ve.Row, ve.Col, tc.v, tc.row, tc.col)
			}
		}
	}
}

// farRows scores rows whose values lie far outside the training data,
// up to 1e300: every kernel distance, squared norm or density term of
// such a row overflows float64. A bounded kernel (and any method without
// one) must score them without NaN and flag them; a kernel that grows
// without bound (kernel=poly or linear) may instead return a
// *detector.ScoreError naming those rows, never a NaN.
func (s *suite) farRows(t *testing.T) {
	d := s.fitted(t, nil)
	_, c := s.train.Dims()
	// The largest magnitude the scale stage keeps finite (it refuses a
	// value it would send past the float64 range with a
	// *scale.RangeError): near it, inner products with the training rows
	// overflow too.
	big := 1.5e308
	for ; big > 1e300; big /= 4 {
		row := mat.NewDense(1, c, nil)
		for j := range c {
			row.Set(0, j, big)
		}
		var re *scale.RangeError
		if _, err := d.Score(nil, row); !errors.As(err, &re) {
			break
		}
	}
	far := []struct {
		v   float64
		col int // -1: every column, -2: every column with alternating signs
	}{{1e100, 0}, {-1e200, c - 1}, {1e300, c / 2}, {-1e300, 0}, {1e150, -1}, {big, -1}, {big, -2}}
	X := mat.NewDense(len(far)+1, c, nil)
	for i, f := range far {
		X.SetRow(i, s.train.RawRowView(i))
		for j := range c {
			switch {
			case f.col == -2 && j%2 == 1:
				X.Set(i, j, -f.v)
			case f.col < 0 || j == f.col:
				X.Set(i, j, f.v)
			}
		}
	}
	X.SetRow(len(far), s.train.RawRowView(len(far))) // and one ordinary row
	sc, err := d.Score(nil, X)
	if k := s.params["kernel"]; k == "poly" || k == "linear" {
		var se *detector.ScoreError
		if errors.As(err, &se) {
			if se.Training || se.Count == 0 || slices.Contains(se.Rows, len(far)) {
				t.Errorf("kernel=%s: %v: want the far rows named, not the ordinary last row", k, err)
			}
			return
		}
	}
	if err != nil {
		t.Fatalf("Score of far rows: %v", err)
	}
	th := d.Threshold()
	for i, f := range far {
		switch v := sc[i]; {
		case math.IsNaN(v):
			t.Errorf("row %d (%v in column %d): score NaN", i, f.v, f.col)
		case !(v > th):
			t.Errorf("row %d (%v in column %d): score %v is not above the threshold %v", i, f.v, f.col, v, th)
		}
	}
	if math.IsNaN(sc[len(far)]) {
		t.Errorf("the ordinary row scores NaN beside far rows")
	}
}

func (s *suite) notFitted(t *testing.T) {
	d, p := s.newDet(t, nil)
	if _, err := d.Score(nil, s.test); !errors.Is(err, detector.ErrNotFitted) {
		t.Errorf("Score before Fit: error %v, want detector.ErrNotFitted", err)
	}
	var buf bytes.Buffer
	_ = p
	if err := detector.Save(&buf, d); !errors.Is(err, detector.ErrNotFitted) {
		t.Errorf("Save before Fit: error %v, want detector.ErrNotFitted", err)
	}
}

func (s *suite) concurrent(t *testing.T) {
	d := s.fitted(t, nil)
	want := mustScore(t, d, s.test)
	const workers = 8
	got := make([][]float64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[w], errs[w] = d.Score(nil, s.test)
		}()
	}
	wg.Wait()
	for w := range workers {
		if errs[w] != nil {
			t.Errorf("goroutine %d: %v", w, errs[w])
		} else if !reflect.DeepEqual(got[w], want) {
			t.Errorf("goroutine %d: scores differ from a lone Score call", w)
		}
	}
}

// cancelAfter is when the Cancel check cancels the fit; cancelBound is how
// long Fit may take to return after that. The bound is the (one
// second); detectors check ctx once per block of work, which takes
// milliseconds, so the bound leaves room for a loaded machine and -race.
const (
	cancelAfter = 100 * time.Millisecond
	cancelBound = time.Second
)

func (s *suite) cancel(t *testing.T) {
	cn := s.opts.Cancel
	if cn.Rows == 0 || cn.Cols == 0 {
		t.Fatal("Options.Cancel is not set: give a fit that takes well over a second")
	}
	X := mat.DenseCopyOf(dataset.GaussianMixture(cn.Rows, cn.Cols, s.c, rand.NewPCG(3, 3)).X)
	d, p := s.newDet(t, cn.Params)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	before := runtime.NumGoroutine()
	var cancelled time.Time
	var mu sync.Mutex
	timer := time.AfterFunc(cancelAfter, func() {
		mu.Lock()
		cancelled = time.Now()
		mu.Unlock()
		cancel()
	})
	start := time.Now()
	err := d.Fit(ctx, X)
	done := time.Now()
	timer.Stop()
	mu.Lock()
	at := cancelled
	mu.Unlock()
	if at.IsZero() {
		t.Fatalf("Fit(%v) of %d×%d finished in %v, before the cancel at %v (err %v): enlarge Options.Cancel",
			p, cn.Rows, cn.Cols, done.Sub(start), cancelAfter, err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Fit returned %v, want ctx.Err() (context.Canceled)", err)
	}
	if late := done.Sub(at); late > cancelBound {
		t.Errorf("Fit returned %v after the cancel, want within %v", late, cancelBound)
	} else {
		t.Logf("Fit of %d×%d returned %v after the cancel", cn.Rows, cn.Cols, late)
	}
	// Nothing the fit started outlives it: within a second the goroutine
	// count is back to what it was, and the process then stays idle (a
	// worker left computing would burn about a core).
	deadline := time.Now().Add(time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines 1 s after the cancelled Fit returned, %d before it started", n, before)
	}
	if c0, ok := cpuSeconds(); ok {
		time.Sleep(idleWindow)
		c1, _ := cpuSeconds()
		t.Logf("CPU time over the %v after: %.3f s", idleWindow, c1-c0)
		if c1-c0 > idleWindow.Seconds()/2 {
			t.Errorf("the process used %.2f s of CPU in the %v after the cancelled Fit: something is still computing", c1-c0, idleWindow)
		}
	}
}

// idleWindow is how long the Cancel check watches the process's CPU time
// after a cancelled fit and its goroutines are gone.
const idleWindow = 500 * time.Millisecond

func (s *suite) saveLoad(t *testing.T) {
	d := s.fitted(t, nil)
	e := Reload(t, d)
	desc, _ := detector.Describe(d)
	ldesc, ok := detector.Describe(e)
	name, params, lname, lparams := desc.Method, desc.Params, ldesc.Method, ldesc.Params
	if !ok || lname != s.name || name != s.name || !reflect.DeepEqual(params, lparams) {
		t.Errorf("Load gave %q %v, saved %q %v", lname, lparams, name, params)
	}
	for k, v := range s.params {
		if !sameValue(params[k], v) {
			t.Errorf("parameter %s=%s was given, the model describes %s=%q", k, v, k, params[k])
		}
	}
	if e.Threshold() != d.Threshold() {
		t.Errorf("threshold %v after Load, %v before", e.Threshold(), d.Threshold())
	}
	if want, got := mustScore(t, d, s.test), mustScore(t, e, s.test); !reflect.DeepEqual(got, want) {
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("row %d: score %v after Load, %v before", i, got[i], want[i])
			}
		}
	}
}

// sameValue compares parameter texts, numbers by value (1e-8 is 1e-08).
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

// defaults checks that what `anomaly methods` documents as each
// parameter's default is what a detector built with no parameters (a zero
// Config) resolves to, and that the resolved parameters build the same
// detector again.
func (s *suite) defaults(t *testing.T) {
	m, _ := detector.Lookup(s.name)
	given := map[string]string{}
	if sh, ok := s.params["shape"]; ok {
		given["shape"] = sh
	}
	d, err := detector.New(s.name, given)
	if err != nil {
		t.Fatalf("detector.New(%q, %v): %v", s.name, given, err)
	}
	desc, ok := detector.Describe(d)
	if !ok {
		t.Fatalf("%T was not built by a registered method", d)
	}
	resolved := desc.Params
	for _, p := range m.Params {
		if p.Default == "" {
			if v, set := resolved[p.Name]; set && p.Name != "shape" {
				t.Errorf("%s: documented without a default, resolves to %q", p.Name, v)
			}
			continue
		}
		if got := resolved[p.Name]; got != p.Default {
			t.Errorf("%s: documented default %q, a zero Config resolves to %q", p.Name, p.Default, got)
		}
	}
	again, err := detector.New(s.name, resolved)
	if err != nil {
		t.Fatalf("rebuilding from the resolved parameters %v: %v", resolved, err)
	}
	if d2, _ := detector.Describe(again); !reflect.DeepEqual(d2.Params, resolved) {
		t.Errorf("resolved parameters do not round-trip:\n%v\n%v", resolved, d2.Params)
	}
}

func (s *suite) auc(t *testing.T) {
	if s.opts.AUCFloor == 0 {
		t.Skip("no AUC floor given")
	}
	d := s.fitted(t, nil)
	auc := eval.AUCROC(mustScore(t, d, s.test), s.yTest)
	if auc < s.opts.AUCFloor {
		t.Errorf("AUC-ROC %.4f on the held-out %s set, floor %.4f", auc, s.dataName(), s.opts.AUCFloor)
	} else {
		t.Logf("AUC-ROC %.4f on the held-out %s set (floor %.4f)", auc, s.dataName(), s.opts.AUCFloor)
	}
}

func (s *suite) dataName() string {
	if s.opts.Data == "banana" {
		return fmt.Sprintf("banana %d-row", s.opts.Rows)
	}
	return fmt.Sprintf("Gaussian-mixture %d×%d", s.opts.Rows, s.opts.Features)
}

// affine fits the method at its default scale stage on the training rows
// and on the same rows in other units, x'_j = a_j·x_j + b_j with factors
// from 10⁻³ to 10³ and offsets up to 10⁴ (positive a_j), and scores the
// test rows likewise: the scores and the threshold must agree to 1e-6 of
// the scores' magnitude. A method whose default stage is none cannot meet
// this (it sees the units); its suite lists the check in Options.Skip.
func (s *suite) affine(t *testing.T) {
	n, d := s.train.Dims()
	m, _ := s.test.Dims()
	a, b := make([]float64, d), make([]float64, d)
	for j := range a {
		a[j] = math.Pow(10, float64(j%7-3)) * (1 + float64(j%3)/3)
		b[j] = math.Pow(10, float64(j%5)) * float64(1-2*(j%2))
	}
	change := func(X *mat.Dense, rows int) *mat.Dense {
		Y := mat.NewDense(rows, d, nil)
		for i := 0; i < rows; i++ {
			for j := 0; j < d; j++ {
				Y.Set(i, j, a[j]*X.At(i, j)+b[j])
			}
		}
		return Y
	}
	d1 := s.fitted(t, s.opts.AffineParams)
	d2, p := s.newDet(t, s.opts.AffineParams)
	if err := d2.Fit(context.Background(), change(s.train, n)); err != nil {
		t.Fatalf("Fit(%v) on the rows in other units: %v", p, err)
	}
	s1, s2 := mustScore(t, d1, s.test), mustScore(t, d2, change(s.test, m))
	agree(t, s1, s2, d1.Threshold(), d2.Threshold(), "in the original units", "in other units")
}

// agree requires two fits' test scores and thresholds to match to 1e-6 of
// the first scores' largest finite magnitude (equal infinities agree); how1
// and how2 say how each fit saw the data.
func agree(t *testing.T, s1, s2 []float64, th1, th2 float64, how1, how2 string) {
	t.Helper()
	var mag float64
	for _, v := range s1 {
		if !math.IsInf(v, 0) {
			mag = math.Max(mag, math.Abs(v))
		}
	}
	tol := 1e-6 * math.Max(mag, 1e-300)
	for i := range s1 {
		if s1[i] != s2[i] && !(math.Abs(s1[i]-s2[i]) <= tol) {
			t.Fatalf("row %d: score %v %s, %v %s (tolerance %.3g)", i, s1[i], how1, s2[i], how2, tol)
		}
	}
	if th1 != th2 && !(math.Abs(th1-th2) <= tol) {
		t.Errorf("threshold %v %s, %v %s", th1, how1, th2, how2)
	}
}

// sparse zeroes about half the entries of the training and test rows, fits
// one detector on the dense matrix and one on a james-bowman/sparse COO
// matrix of the same values (entries stored in a shuffled order), scores
// the test rows as a dense matrix and as a CSR matrix whose rows hold their
// column indices in reverse order, and requires the same scores and
// threshold to 1e-6 of the scores' magnitude (the sparse and dense paths
// add in different orders; AffineParams tighten iterative solvers as for
// Affine). Both fits use scale=none: the standard, robust and minmax
// stages do not centre sparse columns, so they differ on purpose.
func (s *suite) sparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	thin := func(X *mat.Dense) *mat.Dense {
		Y := mat.DenseCopyOf(X)
		r, c := Y.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if rng.IntN(2) == 0 {
					Y.Set(i, j, 0)
				}
			}
		}
		return Y
	}
	train, test := thin(s.train), thin(s.test)
	n, d := train.Dims()
	type entry struct {
		i, j int
		v    float64
	}
	var es []entry
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if v := train.At(i, j); v != 0 {
				es = append(es, entry{i, j, v})
			}
		}
	}
	rng.Shuffle(len(es), func(a, b int) { es[a], es[b] = es[b], es[a] })
	coo := sparse.NewCOO(n, d, nil, nil, nil)
	for _, e := range es {
		coo.Set(e.i, e.j, e.v)
	}
	m, _ := test.Dims()
	indptr := []int{0}
	var ind []int
	var val []float64
	for i := 0; i < m; i++ {
		for j := d - 1; j >= 0; j-- {
			if v := test.At(i, j); v != 0 {
				ind, val = append(ind, j), append(val, v)
			}
		}
		indptr = append(indptr, len(ind))
	}
	csr := sparse.NewCSR(m, d, indptr, ind, val)

	// With no scale stage, and at the defaults: a sparse matrix and a
	// dense copy of it are the same data, and give the same scores (a
	// method that densifies its rows sees the same rows; one that keeps
	// them sparse scales them without centring, which shift-invariant
	// kernels do not see).
	for _, scaled := range []bool{false, true} {
		extra := maps.Clone(s.opts.AffineParams)
		if extra == nil {
			extra = map[string]string{}
		}
		how := "at the default scale stage"
		if !scaled {
			extra["scale"] = "none"
			how = "with scale=none"
		}
		d1, p := s.newDet(t, extra)
		if err := d1.Fit(context.Background(), train); err != nil {
			t.Fatalf("Fit(%v) on the dense rows: %v", p, err)
		}
		d2, _ := s.newDet(t, extra)
		if err := d2.Fit(context.Background(), coo); err != nil {
			t.Fatalf("Fit(%v) on a COO matrix: %v", p, err)
		}
		s1 := mustScore(t, d1, test)
		s2, err := d2.Score(nil, csr)
		if err != nil {
			t.Fatalf("Score of a CSR matrix with unsorted rows: %v", err)
		}
		agree(t, s1, s2, d1.Threshold(), d2.Threshold(), "from dense rows "+how, "from sparse rows "+how)
	}
}
