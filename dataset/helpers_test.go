package dataset

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// npyBytes encodes an .npy file by hand: descr, order and shape go into the
// header verbatim; vals are written with the dtype of descr (little-endian
// f8, i2, u1 or i8) in the order given.
func npyBytes(descr string, fortran bool, shape []int, vals []float64) []byte {
	sh := "("
	for _, s := range shape {
		sh += fmt.Sprintf("%d, ", s)
	}
	if len(shape) > 1 {
		sh = sh[:len(sh)-2]
	} else if len(shape) == 1 {
		sh = sh[:len(sh)-1]
	}
	sh += ")"
	ord := "False"
	if fortran {
		ord = "True"
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, ord, sh)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(hdr)))
	b.WriteString(hdr)
	for _, v := range vals {
		switch descr {
		case "<f8":
			binary.Write(&b, binary.LittleEndian, math.Float64bits(v))
		case "<i8":
			binary.Write(&b, binary.LittleEndian, int64(v))
		case "<i2":
			binary.Write(&b, binary.LittleEndian, int16(v))
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
