package detector_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/detector"
	_ "github.com/kernelad/anomaly/gauss"
)

// A model header naming 2,000,000 unknown parameters (a 26 MB file made
// by hand: the checksum is no signature) is refused from its header, with
// a short error, before a map of them is built; a model of a few unknown
// parameters is refused naming them, and a long list is cut with its
// count.
func TestManyUnknownParams(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{
		{2000000, "lists 2000000 parameters, more than any method has"},
		{3, "unknown parameter k0, k1, k2"},
		{700, "unknown parameter k0, k1, k10, k100, k101, … (700 unknown in all)"},
	} {
		var h strings.Builder
		h.WriteString(`{"format":2,"method":"gauss","version":1,"params":{`)
		for i := range tc.n {
			if i > 0 {
				h.WriteByte(',')
			}
			fmt.Fprintf(&h, `"k%d":"1"`, i)
		}
		h.WriteString(`}}`)
		var b bytes.Buffer
		b.WriteString("ANOMALY-MODEL\n")
		var n8 [8]byte
		binary.LittleEndian.PutUint32(n8[:4], uint32(h.Len()))
		b.Write(n8[:4])
		b.WriteString(h.String())
		for range 2 { // two empty sections
			b.Write(make([]byte, 8))
		}
		binary.LittleEndian.PutUint32(n8[:4], crc32.ChecksumIEEE(b.Bytes()))
		b.Write(n8[:4])
		_, err := detector.Load(&b)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d parameters: Load gave %v, want an error containing %q", tc.n, err, tc.want)
		}
		if err != nil && len(err.Error()) > 1000 {
			t.Errorf("%d parameters: the error is %d bytes long", tc.n, len(err.Error()))
		}
		if tc.n == 2000000 && !errors.Is(err, detector.ErrCorrupt) {
			t.Errorf("2000000 parameters: %v is not ErrCorrupt", err)
		}
	}
}
