package detector_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
	"github.com/kernelad/anomaly/param"
)

// meanDist is a test-only detector: the score is the distance to the
// training mean.
type meanDist struct {
	method.Base[meanModel]
}

// meanModel is the training mean.
type meanModel []float64

type meanDistConfig struct {
	method.Common
}

func (*meanDistConfig) Bind(*param.Set) {}

func newMeanDist(cfg meanDistConfig) (*meanDist, error) {
	b, err := method.NewBase("test-meandist", &cfg, method.Hooks[meanModel]{Fit: fitMean, Decode: decodeMean})
	return &meanDist{Base: b}, err
}

func fitMean(ctx context.Context, f *method.Fitting) (meanModel, []float64, error) {
	X, err := f.Matrix(ctx)
	if err != nil {
		return nil, nil, err
	}
	m := meanModel(testmat.ColMeans(X))
	r, _ := X.Dims()
	train := make([]float64, r)
	return m, train, m.Score(ctx, train, X)
}

func (m meanModel) Score(_ context.Context, dst []float64, X mat.Matrix) error {
	testmat.SqDists(dst, X, m)
	for i, s := range dst {
		dst[i] = math.Sqrt(s)
	}
	return nil
}

func (m meanModel) MarshalBinary() ([]byte, error) {
	return testmat.AppendFloat64s(make([]byte, 0, 8*len(m)), m), nil
}

func decodeMean(b []byte, dim int) (meanModel, error) {
	mean, ok := testmat.Float64s(b)
	if !ok || len(mean) != dim {
		return nil, errors.New("bad state length")
	}
	return mean, nil
}

func init() {
	method.Register(method.Info{Name: "test-meandist", Summary: "distance to the training mean (test only)", Version: 3},
		newMeanDist, func(*meanDist, method.Op, method.Size) float64 { return 0 })
}

func TestRegistry(t *testing.T) {
	if _, err := detector.New("no-such-method", nil); err == nil || !strings.Contains(err.Error(), "unknown method") {
		t.Fatalf("got %v", err)
	}
	if _, err := detector.New("test-meandist", map[string]string{"contamination": "0.9"}); err == nil {
		t.Fatal("out-of-range contamination accepted")
	}
	found := false
	for _, n := range detector.Names() {
		found = found || n == "test-meandist"
	}
	if !found {
		t.Fatal("Names misses a registered method")
	}
}

func fitted(t *testing.T) (detector.Detector, *mat.Dense) {
	X := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	d, err := detector.New("test-meandist", map[string]string{"contamination": "0.25"})
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
	if desc, _ := detector.Describe(l); desc.Method != "test-meandist" || desc.Params["contamination"] != "0.25" {
		t.Fatalf("loaded: method %q params %v", desc.Method, desc.Params)
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
		_, err := detector.Load(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
	// A well-formed file of another state version is refused by version.
	otherVersion = fixCRC(otherVersion)
	_, err := detector.Load(bytes.NewReader(otherVersion))
	if err == nil || !strings.Contains(err.Error(), "state version 4; this build reads version 3") {
		t.Errorf("other state version: %v", err)
	}
}
