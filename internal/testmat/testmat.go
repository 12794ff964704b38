package testmat

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/james-bowman/sparse"
	"github.com/sbinet/npyio/npy"
	"gonum.org/v1/gonum/mat"
)

// Dense returns the matrix whose rows are rows (all of the same length).
func Dense(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// CSR returns a CSR copy of m holding its non-zero entries, row by row
// in increasing column order; the copy has m's shape.
func CSR(m mat.Matrix) *sparse.CSR {
	r, c := m.Dims()
	indptr := make([]int, 1, r+1)
	var ind []int
	var vals []float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if v := m.At(i, j); v != 0 {
				ind, vals = append(ind, j), append(vals, v)
			}
		}
		indptr = append(indptr, len(ind))
	}
	return sparse.NewCSR(r, c, indptr, ind, vals)
}

// Normal returns an n × d matrix of standard normal draws from src, filled
// row by row (entry (i, j) is draw i·d + j).
func Normal(n, d int, src rand.Source) *mat.Dense {
	rng := rand.New(src)
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

// NormalSeed is Normal with the source PCG(seed, seed).
func NormalSeed(n, d int, seed uint64) *mat.Dense {
	return Normal(n, d, rand.NewPCG(seed, seed))
}

// Uniform returns an n × d matrix with entries uniform on [0, 1) from src,
// of which a share zeroFrac is exactly 0, so that a CSR copy is genuinely
// sparse. Each entry takes one draw to decide whether it is zero and, when
// it is not, a second for its value.
func Uniform(n, d int, zeroFrac float64, src rand.Source) *mat.Dense {
	rng := rand.New(src)
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			if rng.Float64() >= zeroFrac {
				x.Set(i, j, rng.Float64())
			}
		}
	}
	return x
}

// ReadJSON decodes the JSON file at path into v, failing tb when the file
// cannot be read or decoded.
func ReadJSON(tb testing.TB, path string, v any) {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
}

// Golden decodes the JSON file testdata/<file> of the calling package's
// directory into a new T, failing tb as ReadJSON does.
func Golden[T any](tb testing.TB, file string) *T {
	tb.Helper()
	var v T
	ReadJSON(tb, filepath.Join("testdata", file), &v)
	return &v
}

// ReadFile returns the contents of the file at path as a reader, failing
// tb when the file cannot be read. The file is closed before it returns.
func ReadFile(tb testing.TB, path string) *bytes.Reader {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.NewReader(b)
}

// Long reports whether the long tests were asked for (ANOMALY_LONG=1).
func Long() bool { return os.Getenv("ANOMALY_LONG") == "1" }

// SkipUnless skips tb unless the environment variable env is "1"; the
// message reads "set <env>=1 <why>".
func SkipUnless(tb testing.TB, env, why string) {
	tb.Helper()
	if os.Getenv(env) != "1" {
		tb.Skipf("set %s=1 %s", env, why)
	}
}

// FitScorer is the part of a detector that FitScore drives (the
// detector.Detector methods; testmat cannot import detector, whose tests
// use it).
type FitScorer interface {
	Fit(ctx context.Context, X mat.Matrix) error
	Score(dst []float64, X mat.Matrix) ([]float64, error)
}

// FitScore fits d on fit and returns its scores of the rows of score,
// failing tb when either step fails.
func FitScore(tb testing.TB, d FitScorer, fit, score mat.Matrix) []float64 {
	tb.Helper()
	if err := d.Fit(context.Background(), fit); err != nil {
		tb.Fatal(err)
	}
	s, err := d.Score(nil, score)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// NPY returns a NumPy .npy file of format 1.0 with the header fields descr,
// fortran_order and shape (padded, as NumPy pads it, so that the data
// starts at a multiple of 64 bytes) followed by data as given. Nothing is
// checked: tests use it for malformed files as well.
func NPY(descr string, fortran bool, shape []int, data []byte) []byte {
	dims := make([]string, len(shape))
	for i, s := range shape {
		dims[i] = strconv.Itoa(s)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	order := "False"
	if fortran {
		order = "True"
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }", descr, order, tuple)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	b = append(b, hdr...)
	return append(b, data...)
}

// Rejects checks a configuration that must be refused. When X is nil,
// build (the method's constructor on that configuration) must fail.
// Otherwise build must succeed and Fit on X must fail, with an error
// matching want (errors.Is) unless want is nil. The refusal is logged.
func Rejects[D interface {
	Fit(ctx context.Context, X mat.Matrix) error
}](tb testing.TB, build func() (D, error), X mat.Matrix, want error) {
	tb.Helper()
	d, err := build()
	if X == nil {
		if err == nil {
			tb.Fatal("New accepted the config")
		}
		tb.Log(err)
		return
	}
	if err != nil {
		tb.Fatal(err)
	}
	err = d.Fit(context.Background(), X)
	if err == nil || (want != nil && !errors.Is(err, want)) {
		tb.Fatalf("Fit error %v, want %v", err, cmp.Or(want, errors.New("an error")))
	}
	tb.Log(err)
}

// ReadNPY reads the .npy file at path as a dense matrix, failing tb when
// the file cannot be opened or read.
func ReadNPY(tb testing.TB, path string) *mat.Dense {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var m mat.Dense
	if err := npy.Read(f, &m); err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return &m
}

// RowSource is a matrix read as a detector.Source only: chunk by chunk,
// each chunk a new copy (as a file's would be), with no reads by index.
type RowSource struct{ X *mat.Dense }

func (s RowSource) Dims() (int, int) { return s.X.Dims() }
func (s RowSource) Sparse() bool     { return false }

// Scan calls fn with copies of the rows, max at a time, in order; it
// stops at fn's first error or when ctx ends.
func (s RowSource) Scan(ctx context.Context, max int, fn func(lo int, X mat.Matrix) error) error {
	n, c := s.X.Dims()
	for lo := 0; lo < n; lo += max {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(lo, mat.DenseCopyOf(s.X.Slice(lo, min(n, lo+max), 0, c))); err != nil {
			return err
		}
	}
	return nil
}

// MaxAbsDiff returns max_i |a_i − b_i|, or +Inf when the lengths differ.
func MaxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	var m float64
	for i := range a {
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// MaxAbsDiffMat returns max_ij |a_ij − b_ij|, or +Inf when the shapes
// differ.
func MaxAbsDiffMat(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	if rb, cb := b.Dims(); rb != r || cb != c {
		return math.Inf(1)
	}
	var m float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return m
}

// ColMeans returns the mean of each column of X, summing x_ij/n down the
// rows in order.
func ColMeans(X mat.Matrix) []float64 {
	r, c := X.Dims()
	mean := make([]float64, c)
	for i := 0; i < r; i++ {
		for j := range mean {
			mean[j] += X.At(i, j) / float64(r)
		}
	}
	return mean
}

// SqDists sets dst[i] to the squared Euclidean distance Σ_j (x_ij − p_j)²
// of row i of X to the point p (len(p) columns, summed in order), for the
// len(dst) first rows, and returns dst: the score of the test-only
// distance-to-the-mean detectors.
func SqDists(dst []float64, X mat.Matrix, p []float64) []float64 {
	for i := range dst {
		var s float64
		for j, v := range p {
			d := X.At(i, j) - v
			s += d * d
		}
		dst[i] = s
	}
	return dst
}

// AppendFloat64s appends v to b as little-endian IEEE 754 doubles, eight
// bytes each: the state of the tests' small detectors.
func AppendFloat64s(b []byte, v []float64) []byte {
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// Float64s decodes b as AppendFloat64s wrote it. ok is false when b does
// not hold a whole, non-zero number of values.
func Float64s(b []byte) (v []float64, ok bool) {
	if len(b) < 8 || len(b)%8 != 0 {
		return nil, false
	}
	v = make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return v, true
}

// ForEachIndex calls fn with every multi-index of shape in row-major order
// (the last index varies fastest). fn must not keep idx: it is one slice,
// updated in place between calls.
func ForEachIndex(shape []int, fn func(idx []int)) {
	idx := make([]int, len(shape))
	for {
		fn(idx)
		j := len(idx) - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < shape[j] {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			return
		}
	}
}

// Random returns an r × c matrix of draws of f.
func Random(rng *rand.Rand, r, c int, f func(*rand.Rand) float64) *mat.Dense {
	m := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m.Set(i, j, f(rng))
		}
	}
	return m
}

// Spectrum returns Q·diag(vals)·Qᵀ, exactly symmetric, for a random
// orthogonal Q (the Q factor of a Gaussian matrix).
func Spectrum(vals []float64, seed uint64) *mat.Dense {
	n := len(vals)
	var qr mat.QR
	qr.Factorize(Random(rand.New(rand.NewPCG(seed, seed)), n, n, (*rand.Rand).NormFloat64))
	var q mat.Dense
	qr.QTo(&q)
	var ql mat.Dense
	ql.Apply(func(_, j int, v float64) float64 { return v * vals[j] }, &q)
	var a mat.Dense
	a.Mul(&ql, q.T())
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a.Set(j, i, a.At(i, j))
		}
	}
	return &a
}

// MaxResidual returns max_j ‖A·y_j − θ_j·y_j‖ over the pairs (vals[j], column
// j of vecs).
func MaxResidual(a *mat.Dense, vals []float64, vecs *mat.Dense) float64 {
	worst := 0.0
	for j, l := range vals {
		var r mat.VecDense
		r.MulVec(a, vecs.ColView(j))
		r.AddScaledVec(&r, -l, vecs.ColView(j))
		worst = math.Max(worst, mat.Norm(&r, 2))
	}
	return worst
}

// ScoreRows returns rows of d columns to score a model decoded from a
// fuzzed file with, whatever d (which the file sets): five N(0, 1) dense
// rows when d ≤ 64, and a 3 × d CSR matrix (any width) whose rows touch
// the first and last columns. Nil for d < 1.
func ScoreRows(d int) []mat.Matrix {
	if d < 1 {
		return nil
	}
	var out []mat.Matrix
	if d <= 64 {
		out = append(out, Normal(5, d, rand.NewPCG(uint64(d), 1)))
	}
	ind, val := []int{0}, []float64{0.5}
	if d > 1 {
		ind, val = append(ind, d-1), append(val, -1.5)
	}
	return append(out, sparse.NewCSR(3, d, []int{0, 1, len(ind), len(ind)}, ind, val))
}
