package all_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/testmat"
)

// smallChunks is a matrix as a detector.Source whose chunks are 7 rows,
// whatever the reader asks for: scoring it is scoring the rows in many
// separate calls.
type smallChunks struct{ X *mat.Dense }

func (s smallChunks) Dims() (int, int) { return s.X.Dims() }
func (s smallChunks) Sparse() bool     { return false }
func (s smallChunks) Scan(ctx context.Context, _ int, fn func(lo int, X mat.Matrix) error) error {
	n, c := s.X.Dims()
	for lo := 0; lo < n; lo += 7 {
		if err := fn(lo, s.X.Slice(lo, min(n, lo+7), 0, c)); err != nil {
			return err
		}
	}
	return nil
}

// The streaming path gives the in-memory path's scores bit for bit for
// every method (issue 32): an .npy file of 4,500 rows of 256 values,
// opened with dataset.Open and read a chunk at a time by
// detector.ScoreSource (two chunks of method.ChunkRows), against Score
// of the same rows in one matrix. Chunks of 7 rows give the same scores
// for a method that scores each row on its own; one whose arithmetic
// depends on how many rows a call scores (a BLAS product blocked by the
// matrix's size) may differ in the last bits there, and is logged.
func TestStreamingScoresEqual(t *testing.T) {
	X := testmat.NormalSeed(300, 256, 11)
	Q := testmat.NormalSeed(4500, 256, 12)
	if method.ChunkRows(256) >= 4500 {
		t.Fatalf("4,500 rows are one chunk of %d: the test needs two", method.ChunkRows(256))
	}
	path := filepath.Join(t.TempDir(), "q.npy")
	if err := os.WriteFile(path, npy(Q), 0o644); err != nil {
		t.Fatal(err)
	}
	// scale=none too: the stage then passes a chunk through, and the
	// read-ahead must copy it out of the source's buffer, which the next
	// chunk overwrites.
	for _, m := range detector.Names() {
		for _, sc := range []string{"", "none"} {
			name := m
			params := map[string]string{}
			if sc != "" {
				name += "/scale=" + sc
				params["scale"] = sc
			}
			t.Run(name, func(t *testing.T) { streamingEqual(t, m, params, X, Q, path) })
		}
	}
}

// streamingEqual fits method m with params on X and checks that
// ScoreSource of the .npy file at path, holding Q, gives Score's scores
// of Q bit for bit.
func streamingEqual(t *testing.T, m string, params map[string]string, X, Q *mat.Dense, path string) {
	d, err := detector.New(m, params, detector.Options{Shape: shapeFor(m)})
	if err != nil {
		t.Fatal(err)
	}
	want := testmat.FitScore(t, d, X, Q)
	stream := func(src detector.Source) []float64 {
		var got []float64
		err := detector.ScoreSource(context.Background(), d, src, func(lo int, s []float64) error {
			if lo != len(got) {
				t.Fatalf("chunk at row %d after %d rows", lo, len(got))
			}
			got = append(got, s...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	f, err := dataset.Open(path, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	same := func(got []float64) bool {
		return slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
	}
	if !same(stream(f)) {
		t.Errorf("the scores of the .npy file streamed differ from Score's")
	}
	if got := stream(smallChunks{Q}); !same(got) {
		var worst float64
		for i := range got {
			worst = math.Max(worst, math.Abs(got[i]-want[i])/math.Max(math.Abs(want[i]), 1e-300))
		}
		t.Logf("scored 7 rows at a time, the scores differ from Score's by up to %.2g (relative)", worst)
	}
}

// shapeFor is the sample shape a tensor method is given for rows of 256
// values.
func shapeFor(m string) []int {
	if m == "1stm" || m == "r1stm" {
		return []int{16, 16}
	}
	return nil
}

// npy encodes X as a C-order little-endian float64 .npy file.
func npy(X *mat.Dense) []byte {
	r, c := X.Dims()
	h := []byte("{'descr': '<f8', 'fortran_order': False, 'shape': (" + itoa(r) + ", " + itoa(c) + "), }")
	for (10+len(h)+1)%64 != 0 {
		h = append(h, ' ')
	}
	h = append(h, '\n')
	out := append([]byte("\x93NUMPY\x01\x00"), byte(len(h)), byte(len(h)>>8))
	out = append(out, h...)
	for i := range r {
		for _, v := range X.RawRowView(i) {
			b := math.Float64bits(v)
			for k := range 8 {
				out = append(out, byte(b>>(8*k)))
			}
		}
	}
	return out
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// A Source that does not check its own values (no FiniteValues method,
// unlike dataset's files) has each chunk checked by the fit and the
// score: a NaN in the third chunk of 7 rows is a *detector.ValueError
// naming its row of the data (1-based 17, column 2), for every method.
func TestSourceValuesChecked(t *testing.T) {
	X := testmat.NormalSeed(300, 256, 11)
	bad := mat.DenseCopyOf(X)
	bad.Set(16, 1, math.NaN())
	for _, m := range detector.Names() {
		t.Run(m, func(t *testing.T) {
			d, err := detector.New(m, map[string]string{}, detector.Options{Shape: shapeFor(m)})
			if err != nil {
				t.Fatal(err)
			}
			var ve *detector.ValueError
			err = detector.FitSource(context.Background(), d, smallChunks{bad})
			if !errors.As(err, &ve) || ve.Row != 16 || ve.Col != 1 {
				t.Errorf("fit: %v", err)
			}
			if err := d.Fit(context.Background(), X); err != nil {
				t.Fatal(err)
			}
			err = detector.ScoreSource(context.Background(), d, smallChunks{bad}, func(int, []float64) error { return nil })
			if !errors.As(err, &ve) || ve.Row != 16 || ve.Col != 1 {
				t.Errorf("score: %v", err)
			}
		})
	}
}
