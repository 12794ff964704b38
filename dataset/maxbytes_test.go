package dataset

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// TestMaxBytes: with Options.MaxBytes below what a file's values need,
// every reader returns a *MemoryError inside an *Error: the .npy and .npz
// readers from the array's header, before reading a value (the file here
// holds only the header: without the limit it is a truncated file); the
// CSV reader from the rows read so far and the file's size; the LIBSVM and
// ARFF readers as the values grow. With the limit at what they need the
// same files read.
func TestMaxBytes(t *testing.T) {
	hdrOnly := testmat.NPY("<f8", false, []int{2000000, 100}, nil)
	npz := npzBytes(map[string][]byte{"X.npy": hdrOnly}, "X.npy")
	var csv, svm, arff strings.Builder
	csv.WriteString("a,b,c\n")
	arff.WriteString("@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute c numeric\n@data\n")
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&csv, "%d.25,%d.5,%d\n", i, i%7, i%3)
		fmt.Fprintf(&svm, "0 1:%d.25 2:%d.5 3:%d\n", i+1, i%7+1, i%3+1)
		fmt.Fprintf(&arff, "%d.25,%d.5,%d\n", i, i%7, i%3)
	}
	need := int64(5000 * 3 * 8) // the dense values
	for _, c := range []struct {
		name string
		data []byte
		max  int64 // a budget the file passes
		fits int64 // a budget it fits, 0: not read with one
	}{
		{"x.npy", hdrOnly, 1 << 30, 0},
		{"x.npz", npz, 1 << 30, 0},
		{"x.csv", []byte(csv.String()), need / 2, 2 * need},
		{"x.libsvm", []byte(svm.String()), need, 3 * need},
		{"x.arff", []byte(arff.String()), need / 2, 2 * need},
	} {
		_, err := Read(bytes.NewReader(c.data), int64(len(c.data)), c.name, Options{MaxBytes: c.max})
		var me *MemoryError
		var de *Error
		if !errors.As(err, &me) || !errors.As(err, &de) || me.Max != c.max || me.Need <= c.max {
			t.Errorf("%s with MaxBytes %d: %v, want a *MemoryError in an *Error", c.name, c.max, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if c.fits > 0 {
			if _, err := Read(bytes.NewReader(c.data), int64(len(c.data)), c.name, Options{MaxBytes: c.fits}); err != nil {
				t.Errorf("%s with MaxBytes %d: %v", c.name, c.fits, err)
			}
		}
	}
}
