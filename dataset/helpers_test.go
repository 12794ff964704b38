package dataset

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
	"gonum.org/v1/gonum/mat"
)

// sameErr checks the errors of a reader (gerr) and of its reference
// reader (werr) on data: both nil, or both an *Error with the same
// message, row, column and line. It reports whether there was an error,
// so that the caller compares the results only when there was none.
func sameErr(t *testing.T, data []byte, gerr, werr error) bool {
	t.Helper()
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("%q: error %v, reference %v", data, gerr, werr)
	}
	if werr == nil {
		return false
	}
	var ge, we *Error
	if !errors.As(gerr, &ge) || !errors.As(werr, &we) {
		t.Fatalf("%q: errors %T %T", data, gerr, werr)
	}
	if gerr.Error() != werr.Error() || ge.Row != we.Row || ge.Col != we.Col || ge.Line != we.Line {
		t.Fatalf("%q: error %q (%d,%d,%d), reference %q (%d,%d,%d)", data, gerr, ge.Row, ge.Col, ge.Line, werr, we.Row, we.Col, we.Line)
	}
	return true
}

// sameDims checks that the matrices a reader (got) and its reference
// (want) read from data have the same shape, and returns it.
func sameDims(t *testing.T, data []byte, got, want mat.Matrix) (r, c int) {
	t.Helper()
	r, c = got.Dims()
	if wr, wc := want.Dims(); r != wr || c != wc {
		t.Fatalf("%q: %d × %d, reference %d × %d", data, r, c, wr, wc)
	}
	return r, c
}

// npyBytes encodes an .npy file by hand: descr, order and shape go into the
// header verbatim (npyPrefix); vals are written with the dtype of descr
// (little-endian f8, i2, u1 or i8) in the order given.
func npyBytes(descr string, fortran bool, shape []int, vals []float64) []byte {
	b := bytes.NewBuffer(testmat.NPY(descr, fortran, shape, nil))
	for _, v := range vals {
		switch descr {
		case "<f8":
			binary.Write(b, binary.LittleEndian, math.Float64bits(v))
		case "<i8":
			binary.Write(b, binary.LittleEndian, int64(v))
		case "<i2":
			binary.Write(b, binary.LittleEndian, int16(v))
		case "|u1":
			b.WriteByte(uint8(v))
		default:
			panic("npyBytes: dtype " + descr)
		}
	}
	return b.Bytes()
}

// npzBytes zips the given members (name → .npy bytes), deflated.
func npzBytes(members map[string][]byte, order ...string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range order {
		w, err := zw.Create(name)
		if err != nil {
			panic(err)
		}
		w.Write(members[name])
	}
	zw.Close()
	return b.Bytes()
}

// writeFile writes content to name in a fresh temporary directory.
func writeFile(t *testing.T, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
