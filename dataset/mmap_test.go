//go:build unix

package dataset

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/internal/testmat"
)

// withoutMaps runs fn with arrays read by ReadAt instead of mapped.
func withoutMaps(fn func()) {
	defer func(old bool) { mapArrays = old }(mapArrays)
	mapArrays = false
	fn()
}

// scanChunks reads every chunk of the file at path, chunks of max rows, as
// copies, and the error Scan returns.
func scanChunks(t *testing.T, path string, max int) (chunks []*mat.Dense, mappedFile bool, err error) {
	t.Helper()
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if at, ok := f.(npyAt); ok {
		mappedFile = at.mm != nil
	}
	err = f.Scan(context.Background(), max, func(lo int, X mat.Matrix) error {
		chunks = append(chunks, mat.DenseCopyOf(X))
		return nil
	})
	return chunks, mappedFile, err
}

// A mapped .npy file and the same file read with ReadAt give the same
// chunks and, for a NaN in the last chunk, the same error (its row and
// column); so do the small cases of TestOpenNPY with maps off.
func TestMappedEqualsRead(t *testing.T) {
	for name, content := range npyCases() {
		withoutMaps(func() { sameAsLoad(t, name, content, Options{}) })
	}
	const n, d = 3000, 7
	X := testmat.NormalSeed(n, d, 5)
	for _, bad := range []bool{false, true} {
		if bad {
			X.Set(2500, 3, math.NaN())
		}
		path := writeFile(t, "m.npy", npyBytes("<f8", false, []int{n, d}, X.RawMatrix().Data))
		got, mappedFile, gerr := scanChunks(t, path, 256)
		if !mappedFile {
			t.Fatal("a native float64 .npy file in C order is not mapped")
		}
		var want []*mat.Dense
		var werr error
		withoutMaps(func() { want, _, werr = scanChunks(t, path, 256) })
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("mapped: %v; read: %v", gerr, werr)
		}
		if bad && (gerr == nil || !strings.Contains(gerr.Error(), "row 2501, column 4")) {
			t.Errorf("a NaN at row 2,501 gave %v", gerr)
		}
		if len(got) != len(want) {
			t.Fatalf("%d chunks mapped, %d read", len(got), len(want))
		}
		for i := range got {
			if !mat.Equal(got[i], want[i]) {
				t.Fatalf("chunk %d differs", i)
			}
		}
		// ReadRows: rows in any order, repeats, a run and far apart.
		idx := []int{2999, 0, 17, 17, 2500, 1, 2, 3, 1500, 0}
		var wrows mat.Matrix
		withoutMaps(func() { wrows, werr = readRowsOf(t, path, idx) })
		grows, gerr := readRowsOf(t, path, idx)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("ReadRows mapped: %v; read: %v", gerr, werr)
		}
		if gerr == nil && !mat.Equal(grows, wrows) {
			t.Fatal("ReadRows differs mapped and read")
		}
		if bad && gerr == nil {
			t.Error("ReadRows of a row holding NaN gave no error")
		}
	}
}

// readRowsOf opens path and reads the rows idx.
func readRowsOf(t *testing.T, path string, idx []int) (mat.Matrix, error) {
	t.Helper()
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return f.(RowReader).ReadRows(context.Background(), idx)
}

// A mapped file truncated after Open gives an error from Scan, not a
// crash: the lost pages fault in the pass's own check.
func TestMappedTruncated(t *testing.T) {
	const n, d = 20000, 8
	X := testmat.NormalSeed(n, d, 6)
	path := writeFile(t, "t.npy", npyBytes("<f8", false, []int{n, d}, X.RawMatrix().Data))
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if at, ok := f.(npyAt); !ok || at.mm == nil {
		t.Fatal("the file is not mapped")
	}
	if err := os.Truncate(path, 4096); err != nil {
		t.Fatal(err)
	}
	err = f.Scan(context.Background(), 1000, func(int, mat.Matrix) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "changed while it was read") {
		t.Fatalf("Scan of a truncated mapped file: %v", err)
	}
	t.Log(err)
}

// Close during a pass whose fn is blocked returns at once (an
// interrupted score may be blocked writing to a pipe); the map stays
// until the pass ends, at its next chunk with errClosed, and the pass
// then removes it.
func TestMappedCloseDuringPass(t *testing.T) {
	const n, d = 5000, 4
	path := writeFile(t, "c.npy", npyBytes("<f8", false, []int{n, d}, testmat.NormalSeed(n, d, 9).RawMatrix().Data))
	f, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := f.(npyAt)
	if at.mm == nil {
		t.Fatal("the file is not mapped")
	}
	inFn, release, ended := make(chan struct{}, 1), make(chan struct{}, 1), make(chan error)
	go func() {
		ended <- f.Scan(context.Background(), 1000, func(lo int, X mat.Matrix) error {
			if lo == 0 {
				inFn <- struct{}{}
				<-release
			}
			_ = mat.Sum(X) // the map is still there
			return nil
		})
	}()
	<-inFn
	if err := f.Close(); err != nil { // must not wait for the pass
		t.Fatal(err)
	}
	release <- struct{}{}
	if err := <-ended; err != errClosed {
		t.Fatalf("the pass after Close: %v, want %v", err, errClosed)
	}
	if !at.mu.TryLock() {
		t.Fatal("the pass still holds the array")
	}
	defer at.mu.Unlock()
	if at.mm != nil {
		t.Error("the map outlived the pass after Close")
	}
}
