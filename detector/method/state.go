package method

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/internal/kit"
	"github.com/kernelad/anomaly/scale"
)

// SaveFactor is the peak bytes of saving a model (detector.Save: the
// encoded state, one buffer of its size, and the copy of its arrays a
// MarshalBinary may make in building its state; most hand over their own
// arrays) in multiples of the model's float64 arrays, which a fit's
// estimate adds (the command line saves every model it fits). Measured
// as the bytes Save allocates with the collector off: 1.0× for expose (a
// 320 MB model, D = 2000 × 20,000 columns), r1svm (1.6 GB), kde, ocsvm
// and iforest; 1.9× for kpca and 2.0× for gauss, which copy the
// projection and the Cholesky factor. Gob, before the raw layout, took
// 6.1–7.5×.
const SaveFactor = 2

// baseState is Base's part of a saved model (the model file's shared
// state): its field names and types are the file format.
type baseState struct {
	Dim       int
	Threshold float64
	Warning   string
	Rule      string
	Offset    []float64
	Divisor   []float64
	Index     []int // compact stage of wide sparse data (scale.Stage)
	Width     int
}

// MarshalModel returns one published model's column names and the two
// sections of its saved state (the shared part and the method's own),
// for detector.Save; detector.ErrNotFitted before the first fit.
func (b *Base[M]) MarshalModel() (columns []string, shared, state []byte, err error) {
	cur := b.s.cur.Load()
	if cur == nil {
		return nil, nil, nil, detector.ErrNotFitted
	}
	st := cur.stage
	shared, err = EncodeState(b.s.method, baseState{Dim: cur.dim, Threshold: cur.threshold, Warning: cur.warning,
		Rule: st.Rule, Offset: st.Offset, Divisor: st.Divisor, Index: st.Index, Width: st.Width})
	if err != nil {
		return nil, nil, nil, err
	}
	if state, err = cur.model.MarshalBinary(); err != nil {
		return nil, nil, nil, err
	}
	return cur.columns, shared, state, nil
}

// UnmarshalModel installs a model read back by detector.Load: the column
// names of the file's header and its two state sections. Every size and
// value is checked; an error names the section it is in.
func (b *Base[M]) UnmarshalModel(columns []string, shared, state []byte) (err error) {
	s := b.s
	defer recoverAs(s.method, "reading the model state", &err)
	var bs baseState
	if err := DecodeState(s.method, shared, &bs); err != nil {
		return fmt.Errorf("shared state: %w", err)
	}
	if bs.Dim < 1 || math.IsNaN(bs.Threshold) || math.IsInf(bs.Threshold, 0) {
		// Fit never sets an infinite threshold (ThresholdFromScores
		// falls back to the largest finite score), so one here is a
		// crafted or damaged model.
		return fmt.Errorf("shared state: invalid column count %d or threshold %v", bs.Dim, bs.Threshold)
	}
	if bs.Rule != s.common.Scale {
		return fmt.Errorf("shared state: scale stage %q differs from the parameters' %q", bs.Rule, s.common.Scale)
	}
	st := &scale.Stage{Rule: bs.Rule, Offset: bs.Offset, Divisor: bs.Divisor, Index: bs.Index, Width: bs.Width}
	cols := bs.Dim
	if bs.Rule == scale.None {
		cols = -1
	}
	if err := st.Check(cols); err != nil {
		return fmt.Errorf("shared state: %w", err)
	}
	if len(columns) > 0 && len(columns) != bs.Dim {
		return fmt.Errorf("shared state: the header names %d columns, the model has %d", len(columns), bs.Dim)
	}
	model, err := s.hooks.Decode(state, bs.Dim)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if len(columns) == 0 {
		columns = nil
	}
	s.fitMu.Lock()
	defer s.fitMu.Unlock()
	s.cur.Store(&fitted[M]{model: model, dim: bs.Dim, stage: st, threshold: bs.Threshold, warning: bs.Warning, columns: columns})
	return nil
}

// EncodeState encodes the state of a fitted model of the named method, a
// struct of numbers, strings, slices and structs of them, in the raw
// layout (see rawMagic): the body of a Model's MarshalBinary once it has
// built its state. It allocates one buffer of the encoded size.
func EncodeState(method string, state any) ([]byte, error) {
	b, err := encodeRaw(state)
	if err != nil {
		return nil, fmt.Errorf("%s: encoding state: %w", method, err)
	}
	return b, nil
}

// DecodeState decodes data written by EncodeState into state, a pointer
// to the method's state type: the start of a Hooks.Decode, which then
// checks what it decoded. Every length is checked against the bytes that
// remain before anything is allocated. States gob-encoded by earlier
// builds are read too.
func DecodeState(method string, data []byte, state any) error {
	var err error
	if bytes.HasPrefix(data, []byte(rawMagic)) {
		err = decodeRaw(data, state)
	} else {
		err = gob.NewDecoder(bytes.NewReader(data)).Decode(state)
	}
	if err != nil {
		return fmt.Errorf("%s: decoding state: %w", method, err)
	}
	return nil
}

// Finite reports whether every value of the slices is finite (neither
// NaN nor ±Inf), as a Decode requires of the arrays it decoded.
func Finite(vs ...[]float64) bool {
	for _, v := range vs {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}

// RowMajor returns m's values row by row for a state: m's own array when
// its rows are contiguous (no copy: EncodeState only reads it), else a
// copy.
func RowMajor(m *mat.Dense) []float64 {
	r, c := m.Dims()
	raw := m.RawMatrix()
	if raw.Stride == c || r <= 1 {
		return raw.Data[: r*c : r*c]
	}
	out := make([]float64, 0, r*c)
	for i := range r {
		out = append(out, m.RawRowView(i)...)
	}
	return out
}

// IsModel reports whether the bytes r begins with are a model file's
// first line (what detector.Save writes first): tools that must not write
// over a model check it. It reads at most that line's length from r.
func IsModel(r io.Reader) bool {
	b := make([]byte, len(kit.Magic))
	n, _ := io.ReadFull(r, b)
	return n == len(b) && string(b) == kit.Magic
}
