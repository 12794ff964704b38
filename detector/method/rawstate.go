package method

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// The raw state layout: the states of fitted models are mostly a few
// large float64 arrays, which gob encodes value by value into buffers that
// grow by doubling (saving a 320 MB expose model took 1.8 GB above the
// fit) and decodes through another copy. In the raw layout a state is
//
//	rawMagic, uvarint len(sig), sig, values
//
// where sig describes the state's type (field names and kinds, in order)
// and the values follow in field order, little-endian and fixed-size:
// bool 1 byte, every integer kind 8 bytes (int64), float32 4, float64 8,
// a string or slice a uint64 length then its bytes or elements. The size
// is computed first, so encoding makes exactly one buffer of the state's
// size; decoding checks every length against the bytes that remain before
// allocating, so a hostile file cannot ask for more memory than it holds.
// A state whose sig differs from the type it is decoded into (the state
// type changed without a version bump) is an error, not a half-filled
// state. Unexported fields are not part of a state, as with gob.
//
// gob never begins a stream with a zero byte (the first byte is a message
// length), so DecodeState tells the layouts apart by the first byte and
// still reads states written before this one.
const rawMagic = "\x00raw1"

var errRawShort = errors.New("state ends early")

// rawSig appends the description of type t to b.
func rawSig(b *strings.Builder, t reflect.Type) error {
	switch t.Kind() {
	case reflect.Bool, reflect.Float32, reflect.Float64, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		b.WriteString(t.Kind().String())
	case reflect.Slice:
		b.WriteString("[]")
		return rawSig(b, t.Elem())
	case reflect.Struct:
		b.WriteByte('{')
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			b.WriteString(f.Name)
			b.WriteByte(':')
			if err := rawSig(b, f.Type); err != nil {
				return err
			}
			b.WriteByte(';')
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("a state cannot hold a %s", t)
	}
	return nil
}

// rawFixed returns the encoded size of a value of kind k, or 0 for the
// variable-size kinds (string, slice, struct).
func rawFixed(k reflect.Kind) int {
	switch k {
	case reflect.Bool:
		return 1
	case reflect.Float32:
		return 4
	case reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return 8
	}
	return 0
}

// rawSize returns the encoded size of v's values.
func rawSize(v reflect.Value) int {
	if n := rawFixed(v.Kind()); n > 0 {
		return n
	}
	switch v.Kind() {
	case reflect.String:
		return 8 + v.Len()
	case reflect.Slice:
		if n := rawFixed(v.Type().Elem().Kind()); n > 0 {
			return 8 + n*v.Len()
		}
		s := 8
		for i := range v.Len() {
			s += rawSize(v.Index(i))
		}
		return s
	default: // struct
		s := 0
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				s += rawSize(v.Field(i))
			}
		}
		return s
	}
}

// rawPut writes v's values at the start of b and returns the rest of b.
func rawPut(b []byte, v reflect.Value) []byte {
	le := binary.LittleEndian
	switch v.Kind() {
	case reflect.Bool:
		b[0] = 0
		if v.Bool() {
			b[0] = 1
		}
		return b[1:]
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		le.PutUint64(b, uint64(v.Int()))
		return b[8:]
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		le.PutUint64(b, v.Uint())
		return b[8:]
	case reflect.Float32:
		le.PutUint32(b, math.Float32bits(float32(v.Float())))
		return b[4:]
	case reflect.Float64:
		le.PutUint64(b, math.Float64bits(v.Float()))
		return b[8:]
	case reflect.String:
		le.PutUint64(b, uint64(v.Len()))
		return b[8+copy(b[8:], v.String()):]
	case reflect.Slice:
		le.PutUint64(b, uint64(v.Len()))
		b = b[8:]
		// The bulk of every state: one tight loop, no reflection per
		// value.
		switch x := v.Interface().(type) {
		case []float64:
			for _, x := range x {
				le.PutUint64(b, math.Float64bits(x))
				b = b[8:]
			}
			return b
		case []int:
			for _, x := range x {
				le.PutUint64(b, uint64(x))
				b = b[8:]
			}
			return b
		}
		for i := range v.Len() {
			b = rawPut(b, v.Index(i))
		}
		return b
	default: // struct
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				b = rawPut(b, v.Field(i))
			}
		}
		return b
	}
}

// encodeRaw returns state (a struct) in the raw layout.
func encodeRaw(state any) ([]byte, error) {
	v := reflect.ValueOf(state)
	var sig strings.Builder
	if err := rawSig(&sig, v.Type()); err != nil {
		return nil, err
	}
	head := binary.AppendUvarint([]byte(rawMagic), uint64(sig.Len()))
	head = append(head, sig.String()...)
	out := make([]byte, len(head)+rawSize(v))
	rawPut(out[copy(out, head):], v)
	return out, nil
}

// decodeRaw decodes data, written by encodeRaw, into state, a pointer to a
// struct.
func decodeRaw(data []byte, state any) error {
	p := reflect.ValueOf(state)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		panic(fmt.Sprintf("detector: DecodeState into %T, not a non-nil pointer", state))
	}
	v := p.Elem()
	var want strings.Builder
	if err := rawSig(&want, v.Type()); err != nil {
		return err
	}
	rest := data[len(rawMagic):]
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) {
		return errRawShort
	}
	if string(rest[k:k+int(n)]) != want.String() {
		return errors.New("the state's layout (its fields and their types) differs from this build's: refit the model")
	}
	rest, err := rawGet(rest[k+int(n):], v)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return fmt.Errorf("%d bytes follow the state", len(rest))
	}
	return nil
}

// rawLen reads a length of elements of at least min bytes each (at least
// one byte, so that a length is never more than the bytes that remain).
func rawLen(b []byte, min int) (int, []byte, error) {
	if len(b) < 8 {
		return 0, nil, errRawShort
	}
	n := binary.LittleEndian.Uint64(b)
	b = b[8:]
	if n > uint64(len(b)/max(min, 1)) {
		return 0, nil, fmt.Errorf("a length of %d is more than the %d bytes that follow", n, len(b))
	}
	return int(n), b, nil
}

// rawMin returns the fewest bytes a value of type t encodes to.
func rawMin(t reflect.Type) int {
	if n := rawFixed(t.Kind()); n > 0 {
		return n
	}
	switch t.Kind() {
	case reflect.String, reflect.Slice:
		return 8
	default: // struct
		s := 0
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				s += rawMin(t.Field(i).Type)
			}
		}
		return s
	}
}

// rawGet decodes one value of v's type from b into v (settable) and
// returns the rest of b.
func rawGet(b []byte, v reflect.Value) ([]byte, error) {
	le := binary.LittleEndian
	if n := rawFixed(v.Kind()); n > len(b) {
		return nil, errRawShort
	}
	switch v.Kind() {
	case reflect.Bool:
		if b[0] > 1 {
			return nil, fmt.Errorf("a bool of %d", b[0])
		}
		v.SetBool(b[0] == 1)
		return b[1:], nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x := int64(le.Uint64(b))
		if v.OverflowInt(x) {
			return nil, fmt.Errorf("%d overflows a %s", x, v.Type())
		}
		v.SetInt(x)
		return b[8:], nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x := le.Uint64(b)
		if v.OverflowUint(x) {
			return nil, fmt.Errorf("%d overflows a %s", x, v.Type())
		}
		v.SetUint(x)
		return b[8:], nil
	case reflect.Float32:
		v.SetFloat(float64(math.Float32frombits(le.Uint32(b))))
		return b[4:], nil
	case reflect.Float64:
		v.SetFloat(math.Float64frombits(le.Uint64(b)))
		return b[8:], nil
	case reflect.String:
		n, b, err := rawLen(b, 1)
		if err != nil {
			return nil, err
		}
		v.SetString(string(b[:n]))
		return b[n:], nil
	case reflect.Slice:
		et := v.Type().Elem()
		n, b, err := rawLen(b, rawMin(et))
		switch {
		case err != nil:
			return nil, err
		case n == 0:
			// Empty decodes as nil, as with gob (methods test
			// optional arrays against nil).
			v.SetZero()
			return b, nil
		case v.Type() == reflect.TypeFor[[]float64]():
			x := make([]float64, n)
			for i := range x {
				x[i] = math.Float64frombits(le.Uint64(b[8*i:]))
			}
			v.Set(reflect.ValueOf(x))
			return b[8*n:], nil
		case v.Type() == reflect.TypeFor[[]int]():
			x := make([]int, n)
			for i := range x {
				u := int64(le.Uint64(b[8*i:]))
				if int64(int(u)) != u {
					return nil, fmt.Errorf("%d overflows an int", u)
				}
				x[i] = int(u)
			}
			v.Set(reflect.ValueOf(x))
			return b[8*n:], nil
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			if b, err = rawGet(b, s.Index(i)); err != nil {
				return nil, err
			}
		}
		v.Set(s)
		return b, nil
	default: // struct
		var err error
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				if b, err = rawGet(b, v.Field(i)); err != nil {
					return nil, err
				}
			}
		}
		return b, nil
	}
}
