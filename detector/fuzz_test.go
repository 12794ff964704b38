package detector_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/detector"
	_ "github.com/kernelad/anomaly/expose" // registers expose
	"github.com/kernelad/anomaly/internal/testmat"
	_ "github.com/kernelad/anomaly/kde"   // registers kde
	_ "github.com/kernelad/anomaly/kpca"  // registers kpca
	_ "github.com/kernelad/anomaly/ocsvm" // registers ocsvm
	_ "github.com/kernelad/anomaly/svdd"  // registers svdd
)

// The model files the fuzzer starts from are fitted on this 30×3 matrix.
func fuzzTrain() *mat.Dense {
	return testmat.Normal(30, 3, rand.NewPCG(1, 2))
}

// envelopes returns valid model files of the test detector and of the
// methods imported here, with small parameters.
func envelopes(tb testing.TB) map[string][]byte {
	X := fuzzTrain()
	out := map[string][]byte{}
	for _, m := range []struct {
		name   string
		params map[string]string
	}{
		{"test-meandist", map[string]string{}},
		{"expose", map[string]string{"features": "8", "seed": "3"}},
		{"expose", map[string]string{"features": "4", "map": "orf", "solver": "sgd", "iterations": "10"}},
		{"ocsvm", map[string]string{"nu": "0.2"}},
		{"ocsvm", map[string]string{"kernel": "poly", "degree": "2"}},
		{"svdd", map[string]string{"nu": "0.2", "kernel": "laplacian"}},
		{"kde", map[string]string{"bandwidth": "0.7"}},
		{"kde", map[string]string{"algorithm": "tree", "rtol": "0.01", "leaf_size": "4", "kernel": "epanechnikov"}},
		{"kpca", map[string]string{"components": "3"}},
		{"kpca", map[string]string{"components": "2", "method": "nystrom", "landmarks": "10", "seed": "5"}},
	} {
		d, err := detector.New(m.name, m.params)
		if err != nil {
			tb.Fatal(err)
		}
		if err := d.Fit(context.Background(), X); err != nil {
			tb.Fatal(err)
		}
		var buf bytes.Buffer
		if err := detector.Save(&buf, d); err != nil {
			tb.Fatal(err)
		}
		out[fmt.Sprintf("%s-%d", m.name, len(out))] = buf.Bytes()
	}
	return out
}

// fixCRC rewrites the last four bytes of b as the checksum of the rest, so
// the fuzzer's mutations of the header and the state reach the JSON parser
// and the methods' UnmarshalBinary instead of stopping at the checksum.
func fixCRC(b []byte) []byte {
	if len(b) < 4 {
		return b
	}
	b = append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// FuzzLoad feeds arbitrary bytes to detector.Load (with the checksum
// repaired when fix is true). Load must return an error or a detector that
// scores without panicking; it must not allocate more than 64 MiB plus 256
// bytes per input byte, whatever sizes the file claims.
func FuzzLoad(f *testing.F) {
	for _, b := range envelopes(f) {
		f.Add(b, false)
		f.Add(b, true)
		f.Add(b[:len(b)/2], false)
		f.Add(b[:len(b)-1], true)
		c := append([]byte(nil), b...)
		c[len(c)/2] ^= 0x40
		f.Add(c, false)
		f.Add(c, true)
	}
	f.Add([]byte("ANOMALY-MODEL\n\xff\xff\xff\xff"), false)
	f.Add([]byte("ANOMALY-MODEL\n\x02\x00\x00\x00{}\xff\xff\xff\xff\xff\xff\xff\x7f"), true)
	f.Add([]byte("a,b\n1,2\n"), false)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, fix bool) {
		if fix {
			data = fixCRC(data)
		}
		before := allocated()
		d, err := detector.Load(bytes.NewReader(data))
		if alloc, limit := allocated()-before, uint64(64<<20+256*len(data)); alloc > limit {
			t.Fatalf("Load of %d bytes allocated %d bytes (limit %d)", len(data), alloc, limit)
		}
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if d == nil {
			t.Fatalf("Load of %d bytes returned no detector and no error", len(data))
		}
		scoreLoaded(t, d)
	})
}

// allocated returns the bytes allocated by the process so far, read through
// runtime/metrics, which (unlike runtime.ReadMemStats) does not stop the
// world on every call.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// scoreLoaded scores a few rows with a loaded model: first one column, then
// the column count a DimError asks for (when small). Errors are fine; a
// panic is not.
func scoreLoaded(t *testing.T, d detector.Detector) {
	X := mat.NewDense(2, 1, []float64{0.5, -1})
	_, err := d.Score(nil, X)
	var de *detector.DimError
	if errors.As(err, &de) && de.Want >= 1 && de.Want <= 1024 {
		X = mat.NewDense(2, de.Want, nil)
		X.Set(1, 0, 1)
		_, err = d.Score(nil, X)
	}
	if errors.Is(err, detector.ErrNotFitted) {
		t.Fatalf("a loaded model is not fitted")
	}
}

// TestWriteLoadCorpus writes the seed envelopes to testdata/fuzz/FuzzLoad
// when ANOMALY_WRITE_CORPUS=1 (run it after a method's state format
// changes; the committed files are its output).
func TestWriteLoadCorpus(t *testing.T) {
	testmat.SkipUnless(t, "ANOMALY_WRITE_CORPUS", "to rewrite testdata/fuzz/FuzzLoad")
	dir := filepath.Join("testdata", "fuzz", "FuzzLoad")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte, fix bool) {
		s := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbool(%v)\n", b, fix)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, b := range envelopes(t) {
		write("valid-"+name, b, false)
		write("truncated-"+name, b[:len(b)*2/3], false)
		c := append([]byte(nil), b...)
		c[len(c)-10] ^= 0xff
		write("corrupt-"+name, c, true)
		v := bytes.Replace(b, []byte(`"version":`), []byte(`"version":9`), 1)
		write("otherversion-"+name, v, true)
	}
}

// TestLoadSeeds runs the committed regression inputs and the seed envelopes
// through the fuzz body in every test run (go test runs FuzzLoad's corpus
// too; this also checks every valid envelope loads and scores like the
// original).
func TestLoadSeeds(t *testing.T) {
	X := fuzzTrain()
	for name, b := range envelopes(t) {
		d, err := detector.Load(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		desc, _ := detector.Describe(d)
		e, err := detector.New(desc.Method, desc.Params)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Fit(context.Background(), X); err != nil {
			t.Fatal(err)
		}
		a, err1 := d.Score(nil, X)
		c, err2 := e.Score(nil, X)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", name, err1, err2)
		}
		for i := range a {
			if a[i] != c[i] {
				t.Fatalf("%s: row %d scores %v loaded, %v refitted", name, i, a[i], c[i])
			}
		}
	}
}
