package method

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"math"
	"reflect"
	"strings"
	"testing"
)

type rawInner struct {
	A int32
	V float64
}

type rawKinds struct {
	B      bool
	I      int
	I8     int8
	U      uint64
	F32    float32
	F      float64
	S      string
	Xs     []float64
	Is     []int
	Nested [][]float64
	Inner  rawInner
	Nodes  [][]rawInner
	Empty  []float64 // nil
	hidden int       // not part of a state
}

func rawSample() rawKinds {
	return rawKinds{
		B: true, I: -7, I8: -128, U: math.MaxUint64, F32: 1.5, F: math.Inf(-1), S: "π",
		Xs: []float64{1, -0.0, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN()},
		Is: []int{0, -1, math.MaxInt}, Nested: [][]float64{{1}, nil, {2, 3}},
		Inner: rawInner{A: -3, V: 2.5}, Nodes: [][]rawInner{{{1, 1}, {2, 2}}, {}},
		hidden: 9,
	}
}

// TestRawStateRoundTrip encodes a state of every kind a state may hold and
// decodes it bit for bit (NaN and −0 included), with the encoded size
// exactly what was allocated, empty slices decoding as nil (as gob does)
// and unexported fields left out.
func TestRawStateRoundTrip(t *testing.T) {
	in := rawSample()
	b, err := EncodeState("m", in)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != cap(b) {
		t.Errorf("encoded %d bytes into a buffer of %d", len(b), cap(b))
	}
	var out rawKinds
	if err := DecodeState("m", b, &out); err != nil {
		t.Fatal(err)
	}
	in.hidden = 0
	in.Nodes[1] = nil
	bits := func(xs []float64) []uint64 {
		u := make([]uint64, len(xs))
		for i, x := range xs {
			u[i] = math.Float64bits(x)
		}
		return u
	}
	if !reflect.DeepEqual(bits(out.Xs), bits(in.Xs)) {
		t.Errorf("Xs %v, want %v", out.Xs, in.Xs)
	}
	out.Xs, in.Xs = nil, nil
	if !reflect.DeepEqual(out, in) {
		t.Errorf("decoded\n%+v\nwant\n%+v", out, in)
	}
}

// TestRawStateHostile: every truncation of a state, a length larger than
// the bytes that follow, a value out of its type's range, trailing bytes
// and a state of another layout are errors, never a panic or an
// allocation beyond the data.
func TestRawStateHostile(t *testing.T) {
	b, err := EncodeState("m", rawSample())
	if err != nil {
		t.Fatal(err)
	}
	var out rawKinds
	for k := len(rawMagic); k < len(b); k++ {
		if err := DecodeState("m", b[:k], &out); err == nil {
			t.Fatalf("truncated to %d of %d bytes: decoded", k, len(b))
		}
	}
	if err := DecodeState("m", append(b[:len(b):len(b)], 0), &out); err == nil || !strings.Contains(err.Error(), "1 bytes follow the state") {
		t.Errorf("trailing byte: error %v", err)
	}
	// The length of Xs (after the fixed fields) claims 2^62 values.
	n, k := binary.Uvarint(b[len(rawMagic):])
	values := len(rawMagic) + k + int(n) // B, I, I8, U, F32, F, S, then Xs
	xsLen := values + 1 + 8 + 8 + 8 + 4 + 8 + 8 + len("π")
	bad := append([]byte(nil), b...)
	copy(bad[xsLen:], []byte{0, 0, 0, 0, 0, 0, 0, 0x40})
	if err := DecodeState("m", bad, &out); err == nil || !strings.Contains(err.Error(), "is more than the") {
		t.Errorf("huge length: error %v", err)
	}
	// I8 holds 200.
	bad = append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(bad[values+1+8:], 200)
	if err := DecodeState("m", bad, &out); err == nil || !strings.Contains(err.Error(), "overflows") {
		t.Errorf("int8 of 200: error %v", err)
	}
	var other struct{ X []float64 }
	if err := DecodeState("m", b, &other); err == nil || !strings.Contains(err.Error(), "refit the model") {
		t.Errorf("other layout: error %v", err)
	}
}

// TestGobStateStillRead: states gob-encoded by earlier builds decode.
func TestGobStateStillRead(t *testing.T) {
	in := baseState{Dim: 3, Threshold: 0.25, Rule: "robust", Offset: []float64{1, 2, 3}, Divisor: []float64{4, 5, 6}}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(in); err != nil {
		t.Fatal(err)
	}
	var out baseState
	if err := DecodeState("m", b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("decoded %+v, want %+v", out, in)
	}
}
