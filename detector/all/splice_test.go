package all_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/testmat"
)

// sections splits a model file into its envelope up to the method state
// (magic, header, shared state), the method state's section (length and
// bytes) and the checksum.
func sections(t *testing.T, b []byte) (head, state []byte) {
	t.Helper()
	off := len("ANOMALY-MODEL\n")
	off += 4 + int(binary.LittleEndian.Uint32(b[off:]))
	off += 8 + int(binary.LittleEndian.Uint64(b[off:]))
	return b[:off], b[off : len(b)-4]
}

// TestSplicedStates loads, for every method, a model file whose method
// state comes from a model fitted on another column count than its shared
// state (a damaged or hand-made file whose checksum is right): Load must
// refuse it as corrupt. Such files used to load and then panic in Score.
func TestSplicedStates(t *testing.T) {
	fit := func(name string, cols int) []byte {
		params := map[string]string{}
		if name == "1stm" || name == "r1stm" {
			params["shape"] = map[int]string{4: "2x2", 6: "2x3"}[cols]
		}
		d, err := detector.New(name, params)
		if err != nil {
			t.Fatal(err)
		}
		X := testmat.Normal(40, cols, rand.NewPCG(uint64(cols), 1))
		if err := d.Fit(context.Background(), X); err != nil {
			t.Fatal(name, err)
		}
		var buf bytes.Buffer
		if err := detector.Save(&buf, d); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	for _, name := range detector.Names() {
		head, _ := sections(t, fit(name, 4))
		_, state := sections(t, fit(name, 6))
		file := append(append([]byte(nil), head...), state...)
		file = binary.LittleEndian.AppendUint32(file, crc32.ChecksumIEEE(file))
		if _, err := detector.Load(bytes.NewReader(file)); !errors.Is(err, detector.ErrCorrupt) {
			t.Errorf("%s: Load of a 4-column model with a 6-column state: %v, want ErrCorrupt", name, err)
		}
	}
}
