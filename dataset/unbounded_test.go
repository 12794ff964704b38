package dataset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// endless is a stream of a header then the same line without end, as
// (echo a,b; yes 1.5,2.5) is; read counts the bytes it has given.
type endless struct {
	head, line string
	off        int // into head, then into line
	inHead     bool
	read       int64
}

func newEndless(head, line string) *endless { return &endless{head: head, line: line, inHead: true} }

func (e *endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		s := e.line
		if e.inHead {
			s = e.head
		}
		k := copy(p[n:], s[e.off:])
		n += k
		e.off += k
		if e.off == len(s) {
			e.off, e.inHead = 0, false
		}
	}
	e.read += int64(n)
	return n, nil
}

// endlessFormats are the text formats a stream may be, as a header and a
// line repeated.
var endlessFormats = []struct{ format, head, line string }{
	{".csv", "a,b\n", "1.5,2.5\n"},
	{".csv", "a,b,label\n", "1.5,2.5,0\n"},
	{".tsv", "a\tb\n", "1.5\t2.5\n"},
	{".libsvm", "", "1 1:1.5 2:2.5\n"},
	{".arff", "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n", "1.5,2.5\n"},
}

// allocated returns the bytes f allocates (the runtime's count of heap
// allocations, garbage included) and the bytes by which the heap's
// memory from the system grows meanwhile (what an address-space limit
// counts), with the runtime's soft memory limit at the budget, as the
// command line sets it.
func allocated(budget int64, f func()) (total, heap uint64) {
	var before, after runtime.MemStats
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(budget))
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.HeapSys - min(after.HeapSys, before.HeapSys)
}

// TestEndlessStream (issue 34): an endless stream, read whole under a
// memory budget, is refused with a *MemoryError naming the budget and
// the bytes read, before an allocation would take the values past the
// budget: what the reader allocates in all stays below it. It crashed
// the process with Go's fatal "out of memory" under an address-space
// limit, the growth step itself passing the budget.
func TestEndlessStream(t *testing.T) {
	const budget = 24 << 20
	for _, c := range endlessFormats {
		src := newEndless(c.head, c.line)
		var err error
		total, heap := allocated(budget, func() {
			_, err = ReadStream(src, c.format, "standard input", Options{MaxBytes: budget})
		})
		var me *MemoryError
		var de *Error
		if !errors.As(err, &me) || !errors.As(err, &de) || me.Max != budget || me.Need <= budget {
			t.Fatalf("%s: %v, want a *MemoryError of the budget in an *Error", c.format, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "of the data") || !strings.Contains(msg, "over the memory budget of 25.2 MB") || !strings.HasPrefix(msg, "standard input: ") {
			t.Errorf("%s: message %q should name the bytes read and the budget", c.format, msg)
		}
		// ARFF rows are split into strings, garbage at once: what it
		// allocates in all is not held.
		if heap > budget || c.format != ".arff" && total > budget {
			t.Errorf("%s: %d bytes allocated, the heap grew by %d, under a budget of %d", c.format, total, heap, budget)
		}
		t.Logf("%s: %.1f MB read, %.1f MB allocated: %v", c.format, float64(src.read)/1e6, float64(total)/1e6, err)
	}
}

// bomb returns gzip data that expand to head then line repeated, about
// size bytes in all, a thousand times smaller than that: gzip members
// one after another (gzip -d reads them so), the first holding head, the
// others the same MiB of lines. The last member's trailer is made to
// give isize as the data's size: a bomb's true size is past 2³² and its
// trailer holds it modulo 2³², anything.
func bomb(head, line string, size int, isize uint32) []byte {
	member := func(s string) []byte {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		w.Write([]byte(s))
		w.Close()
		return b.Bytes()
	}
	block := member(strings.Repeat(line, (1<<20)/len(line)))
	out := member(head)
	for n := 0; n < size; n += 1 << 20 {
		out = append(out, block...)
	}
	binary.LittleEndian.PutUint32(out[len(out)-4:], isize)
	return out
}

// TestGzipBomb (issue 34): a gzip file that expands far past the budget
// (a 14.5 MB .csv.gz of 10 GB of text crashed the process in growRows)
// is refused with a *MemoryError before its values pass the budget,
// whatever size its trailer gives: a large one (the buffer projected
// from it is refused) or a small one (the rows past it go into blocks,
// refused as a stream's).
func TestGzipBomb(t *testing.T) {
	const budget = 16 << 20
	for _, c := range endlessFormats {
		for _, isize := range []uint32{1 << 31, 1 << 20} {
			data := bomb(c.head, c.line, 256<<20, isize)
			path := writeFile(t, "bomb"+c.format+".gz", data)
			var err error
			total, heap := allocated(budget, func() { _, err = Load(path, Options{MaxBytes: budget}) })
			var me *MemoryError
			var de *Error
			if !errors.As(err, &me) || !errors.As(err, &de) || me.Max != budget || !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("%s (trailer size %d, %d bytes): %v, want a *MemoryError naming the file", c.format, isize, len(data), err)
			}
			if heap > budget || c.format != ".arff" && total > budget {
				t.Errorf("%s (trailer size %d): %d bytes allocated, the heap grew by %d, under a budget of %d", c.format, isize, total, heap, budget)
			}
			t.Logf("%s, %d bytes, trailer size %d: %.1f MB allocated: %v", c.format, len(data), isize, float64(total)/1e6, err)
		}
	}
}

// TestStreamBlocks: data of unknown size collected by blocks read as a
// file of known size does, and within a budget they fit.
func TestStreamBlocks(t *testing.T) {
	for _, c := range endlessFormats {
		var b strings.Builder
		b.WriteString(c.head)
		for range 300000 {
			b.WriteString(c.line)
		}
		s := b.String()
		file, err := Read(strings.NewReader(s), int64(len(s)), "f"+c.format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		stream, err := ReadStream(io.MultiReader(strings.NewReader(s)), c.format, "f"+c.format, Options{MaxBytes: 64 << 20})
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		sameDataset(t, c.format, stream, file)
	}
}
