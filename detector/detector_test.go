package detector

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/param"
)

// meanDist is a test-only detector: the score is the distance to the
// training mean.
type meanDist struct {
	Base
	mean []float64
}

type meanDistConfig struct {
	Common
}

func (*meanDistConfig) Bind(*param.Set) {}

func newMeanDist(cfg meanDistConfig) (*meanDist, error) {
	b, err := NewBase("test-meandist", &cfg)
	return &meanDist{Base: b}, err
}

func (m *meanDist) Fit(ctx context.Context, X mat.Matrix) error {
	return m.FitWith(ctx, X, func(_ context.Context, X mat.Matrix) ([]float64, error) {
		m.mean = testmat.ColMeans(X)
		return m.score(nil, X)
	})
}

func (m *meanDist) Score(dst []float64, X mat.Matrix) ([]float64, error) {
	return m.ScoreWith(dst, X, m.score)
}

func (m *meanDist) score(dst []float64, X mat.Matrix) ([]float64, error) {
	r, _ := X.Dims()
	dst = testmat.SqDists(ScoreDst(dst, r), X, m.mean)
	for i, s := range dst {
		dst[i] = math.Sqrt(s)
	}
	return dst, nil
}

func (m *meanDist) MarshalBinary() ([]byte, error) {
	return testmat.AppendFloat64s(make([]byte, 0, 8*len(m.mean)), m.mean), nil
}

func (m *meanDist) UnmarshalBinary(b []byte) error {
	mean, ok := testmat.Float64s(b)
	if !ok {
		return errors.New("bad state length")
	}
	m.mean = mean
	return nil
}

func init() {
	RegisterLegacy(Info{Name: "test-meandist", Summary: "distance to the training mean (test only)", Version: 3},
		newMeanDist, func(*meanDist, Op, Size) float64 { return 0 })
}

// Expected values are numpy.percentile(s, 100*(1-c)) (linear
// interpolation): for s = 1..10 and c = 0.1 the position is 0.9·9 = 8.1,
// so 9 + 0.1·(10 − 9) = 9.1; for c = 0.25, 0.75·9 = 6.75 → 7.75.
func TestThresholdFromScores(t *testing.T) {
	s := []float64{3, 1, 2, 10, 9, 8, 7, 6, 5, 4}
	for _, c := range []struct{ c, want float64 }{{0.1, 9.1}, {0.25, 7.75}, {0.5, 5.5}} {
		if got := ThresholdFromScores(s, c.c); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("c=%v: got %v, want %v", c.c, got, c.want)
		}
	}
	if s[0] != 3 {
		t.Fatal("scores were modified")
	}
	// +Inf scores (finite-support KDE): the threshold stays finite.
	inf := []float64{1, 2, 3, 4, 5, 6, 7, 8, math.Inf(1), math.Inf(1)}
	if got := ThresholdFromScores(inf, 0.1); got != 8 {
		t.Errorf("with +Inf: got %v, want 8", got)
	}
	// −Inf scores: the threshold is finite, and labels are those of a
	// threshold of −Inf (finite rows flagged, −Inf rows not).
	ninf := []float64{math.Inf(-1), math.Inf(-1), math.Inf(-1), 4}
	th0 := ThresholdFromScores(ninf, 0.5)
	if math.IsInf(th0, 0) {
		t.Errorf("with −Inf: threshold %v", th0)
	}
	if got := Label(nil, ninf, th0); got[0] != 0 || got[3] != 1 {
		t.Errorf("with −Inf: labels %v, want [0 0 0 1]", got)
	}
	// Flagged share on distinct scores: ⌊c·n⌋ or one more.
	n := 1000
	sc := make([]float64, n)
	for i := range sc {
		sc[i] = float64(i*7919%n) + 0.5
	}
	th := ThresholdFromScores(sc, 0.1)
	lab := Label(nil, sc, th)
	var k int
	for _, l := range lab {
		k += l
	}
	if k < 100 || k > 101 {
		t.Errorf("flagged %d of 1000 at c = 0.1", k)
	}
}

func TestCheckMatrix(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{1, 2, 3, math.Inf(-1), 5, 6})
	var ve *ValueError
	if err := CheckMatrix(X, 0); !errors.As(err, &ve) || ve.Row != 1 || ve.Col != 1 {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(CheckMatrix(X, 0).Error(), "row 2, column 2") {
		t.Fatalf("message %q does not name row 2, column 2", CheckMatrix(X, 0))
	}
	var de *DimError
	if err := CheckMatrix(mat.NewDense(1, 2, nil), 3); !errors.As(err, &de) {
		t.Fatalf("got %v", err)
	}
	var ee *EmptyError
	if err := CheckMatrix(&mat.Dense{}, 0); !errors.As(err, &ee) {
		// An empty Dense reports 0×0.
		t.Fatalf("got %v", err)
	}
	// A transposed view has no raw layout: the generic path must find it too.
	if err := CheckMatrix(X.T(), 0); !errors.As(err, &ve) || ve.Row != 1 || ve.Col != 1 {
		t.Fatalf("transpose: %v", err)
	}
}

func TestRegistry(t *testing.T) {
	if _, err := New("no-such-method", nil); err == nil || !strings.Contains(err.Error(), "unknown method") {
		t.Fatalf("got %v", err)
	}
	if _, err := New("test-meandist", map[string]string{"contamination": "0.9"}); err == nil {
		t.Fatal("out-of-range contamination accepted")
	}
	found := false
	for _, n := range Names() {
		found = found || n == "test-meandist"
	}
	if !found {
		t.Fatal("Names misses a registered method")
	}
}

func fitted(t *testing.T) (Detector, *mat.Dense) {
	X := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	d, err := New("test-meandist", map[string]string{"contamination": "0.25"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	return d, X
}

func TestSaveLoadRoundTrip(t *testing.T) {
	d, X := fitted(t)
	l, _ := saveLoad(t, d)
	if name, params, _ := Describe(l); name != "test-meandist" || params["contamination"] != "0.25" {
		t.Fatalf("loaded: method %q params %v", name, params)
	}
	a, _ := d.Score(nil, X)
	b, _ := l.Score(nil, X)
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("scores differ after load")
		}
	}
}

func TestLoadRejects(t *testing.T) {
	d, _ := fitted(t)
	_, good := saveLoad(t, d)
	flip := append([]byte(nil), good...)
	flip[len(flip)-10] ^= 0xff
	otherVersion := bytes.Replace(append([]byte(nil), good...), []byte(`"version":3`), []byte(`"version":4`), 1)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "model header"},
		{"not a model", []byte("x,y\n1,2\n"), "model header"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"no checksum", good[:len(good)-2], "truncated"},
		{"flipped byte", flip, "checksum"},
		{"other version", otherVersion, "checksum"}, // edited without fixing the CRC
		{"two models joined", append(append([]byte(nil), good...), good...), "more data follow the model's checksum"},
		{"a byte appended", append(append([]byte(nil), good...), '\n'), "more data follow"},
	} {
		_, err := Load(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A well-formed file of another state version is refused by version.
	regMu.Lock()
	m := registry["test-meandist"]
	m.Version = 4
	registry["test-meandist"] = m
	regMu.Unlock()
	defer func() {
		regMu.Lock()
		m.Version = 3
		registry["test-meandist"] = m
		regMu.Unlock()
	}()
	_, err := Load(bytes.NewReader(good))
	if err == nil || !strings.Contains(err.Error(), "state version 3") {
		t.Errorf("other state version: %v", err)
	}
}

// The SIMD screen (allFinite) must not miss a single non-finite value at any
// position, in a contiguous matrix longer than its 1024-value chunks and in
// a strided view.
func TestCheckMatrixScreen(t *testing.T) {
	big := mat.NewDense(700, 3, nil) // 2100 values: three chunks
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, pos := range [][2]int{{0, 0}, {341, 1}, {699, 2}} {
			big.Set(pos[0], pos[1], bad)
			var ve *ValueError
			if err := CheckMatrix(big, 0); !errors.As(err, &ve) || ve.Row != pos[0] || ve.Col != pos[1] {
				t.Fatalf("%v at %v: got %v", bad, pos, err)
			}
			view := big.Slice(0, 700, 1, 3) // stride 3, 2 columns
			err := CheckMatrix(view, 0)
			if pos[1] == 0 {
				if err != nil {
					t.Fatalf("%v at %v outside the view: got %v", bad, pos, err)
				}
			} else if !errors.As(err, &ve) || ve.Row != pos[0] || ve.Col != pos[1]-1 {
				t.Fatalf("view, %v at %v: got %v", bad, pos, err)
			}
			big.Set(pos[0], pos[1], 0)
		}
	}
	if err := CheckMatrix(big, 0); err != nil {
		t.Fatal(err)
	}
}

// CentredCopy returns the column means (each summed in row order, then
// divided: the values below are exact in binary) and the rows less them,
// and leaves X as it was.
func TestCentredCopy(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 10, 2, 20, 3, 30, 6, -4})
	xc, mean := CentredCopy(X)
	if want := []float64{3, 14}; mean[0] != want[0] || mean[1] != want[1] {
		t.Fatalf("mean %v, want %v", mean, want)
	}
	want := mat.NewDense(4, 2, []float64{-2, -4, -1, 6, 0, 16, 3, -18})
	if !mat.Equal(xc, want) {
		t.Errorf("centred %v, want %v", mat.Formatted(xc), mat.Formatted(want))
	}
	if X.At(3, 1) != -4 {
		t.Error("X was changed")
	}
}
