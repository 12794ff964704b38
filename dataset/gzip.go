package dataset

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"
)

// streams maps the extension of a format a gzip file may hold to its
// reader over a stream: the text formats and .npy (an .npz is compressed
// already). size is the uncompressed size as the gzip trailer gives it
// (modulo 2³²), or −1 when that is not plausible; the readers use it only
// to size their first buffers.
var streams = map[string]func(r io.Reader, size int64, path string, opt Options) (*Dataset, error){
	".csv":      readCSV,
	".tsv":      readTSV,
	".arff":     readARFF,
	".libsvm":   readLIBSVMStream,
	".svm":      readLIBSVMStream,
	".svmlight": readLIBSVMStream,
	".txt":      readLIBSVMStream,
	".npy":      readNPYStream,
}

func readLIBSVMStream(r io.Reader, size int64, path string, opt Options) (*Dataset, error) {
	return readLIBSVM(r, path, opt, size)
}

// readNPYStream reads an .npy array from a stream of unknown length: the
// data are read in growing chunks, so memory grows with the bytes that
// arrive, not with what the header promises (a deflated .npz member is
// read the same way).
func readNPYStream(r io.Reader, _ int64, path string, opt Options) (*Dataset, error) {
	a, err := readNPY(r, math.MaxInt64, 0, opt)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return fromArrays(path, a, nil, nil, opt)
}

// gzipExtensions returns the compressed forms Load reads, sorted:
// ".csv.gz", ".npy.gz", ...
func gzipExtensions() []string {
	ext := make([]string, 0, len(streams))
	for e := range streams {
		ext = append(ext, e+".gz")
	}
	sort.Strings(ext)
	return ext
}

// StreamFormats returns the formats ReadStream reads, sorted: the
// extensions of the formats that need no random access, alone and with
// .gz.
func StreamFormats() []string {
	ext := gzipExtensions()
	for e := range streams {
		ext = append(ext, e)
	}
	sort.Strings(ext)
	return ext
}

// ReadStream reads a data set from r, a stream of unknown length such as
// standard input. format is one of StreamFormats (".csv", ".tsv.gz", ...;
// an .npz needs random access and is not one); data that start with the
// gzip magic number are decompressed whatever format says. name names the
// data in messages and Source. The memory budget holds as for Load, from the rows
// read so far.
func ReadStream(r io.Reader, format, name string, opt Options) (*Dataset, error) {
	f := strings.ToLower(format)
	gz := strings.HasSuffix(f, ".gz")
	read, ok := streams[strings.TrimSuffix(f, ".gz")]
	if !ok {
		return nil, &Error{Path: name, Err: fmt.Errorf("format %q cannot be read from a stream: the formats are %s", format, strings.Join(StreamFormats(), ", "))}
	}
	// gzip data are recognised by their magic number, as zcat -f does.
	br := bufio.NewReader(r)
	if _, err := br.Peek(1); err != nil && err != io.EOF {
		// A read error (standard input redirected from a directory)
		// is named as such: the .npy reader took it for a short header.
		return nil, &Error{Path: name, Err: fmt.Errorf("cannot read: %v", err)}
	}
	if isGzip(br) {
		gz = true
	}
	if !gz {
		return sniffed(br, read, name, opt)
	}
	zr, err := newGzipMembers(br)
	if err != nil {
		return nil, &Error{Path: name, Err: fmt.Errorf("not gzip data: %v", err)}
	}
	return sniffed(bufio.NewReader(truncation{zr}), read, name, opt)
}

// sniffed reads br with read, unless its first bytes say what it is: .npy
// data (the magic "\x93NUMPY") are read as .npy whatever the format says,
// as gzip is recognised by its magic number (piped without --data-format
// npy they were taken for UTF-16 text); a zip archive (an .npz) is an
// error that says it needs a file.
func sniffed(br *bufio.Reader, read func(io.Reader, int64, string, Options) (*Dataset, error), name string, opt Options) (*Dataset, error) {
	b, _ := br.Peek(6)
	switch {
	case string(b) == "\x93NUMPY":
		return readNPYStream(br, -1, name, opt)
	case len(b) >= 4 && string(b[:4]) == "PK\x03\x04":
		return nil, &Error{Path: name, Err: errors.New("a zip archive (an .npz?): an .npz needs random access; give it as a file, not a stream")}
	}
	return read(br, -1, name, opt)
}

// isGzip reports whether br starts with the gzip magic number.
func isGzip(br *bufio.Reader) bool {
	b, _ := br.Peek(2)
	return len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b
}

// gzipReader returns the reader of a gzip file whose name, without .gz,
// has the extension of a format in streams.
func gzipReader(path string) (func(io.ReaderAt, int64, string, Options) (*Dataset, error), error) {
	inner := strings.ToLower(filepath.Ext(strings.TrimSuffix(path, filepath.Ext(path))))
	read, ok := streams[inner]
	if !ok {
		return nil, &Error{Path: path, Err: fmt.Errorf("a gzip file of unknown format %q: supported are %s", inner, strings.Join(gzipExtensions(), ", "))}
	}
	return func(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error) {
		zr, err := newGzipMembers(bufio.NewReader(io.NewSectionReader(ra, 0, size)))
		if err != nil {
			return nil, &Error{Path: path, Err: fmt.Errorf("not a gzip file: %v", err)}
		}
		// The trailer's ISIZE is the uncompressed size modulo 2³²: taken
		// when it is at least the compressed size (text compresses), as a
		// hint for the first buffers only.
		est := int64(-1)
		var t [4]byte
		if size >= 18 {
			if _, err := ra.ReadAt(t[:], size-4); err == nil {
				if v := int64(binary.LittleEndian.Uint32(t[:])); v >= size {
					est = v
				}
			}
		}
		return read(truncation{zr}, est, path, opt)
	}, nil
}

// gzipMembers reads the members of a gzip stream one after another, as
// gzip -d does: a member that follows another is read on, zero bytes after
// the last (the padding of tapes and some writers, which gzip ignores) end
// the data, and anything else there is an error. compress/gzip's own
// multistream mode took zero padding for a bad header.
type gzipMembers struct {
	src *bufio.Reader // the compressed bytes; an io.ByteReader, so gzip reads no further than a member
	zr  *gzip.Reader
}

func newGzipMembers(src *bufio.Reader) (*gzipMembers, error) {
	zr, err := gzip.NewReader(src)
	if err != nil {
		return nil, err
	}
	zr.Multistream(false)
	return &gzipMembers{src: src, zr: zr}, nil
}

func (g *gzipMembers) Read(p []byte) (int, error) {
	for {
		n, err := g.zr.Read(p)
		if err != io.EOF || n > 0 {
			if err == io.EOF {
				err = nil // the member's end: the next Read goes on
			}
			return n, err
		}
		if isGzip(g.src) {
			if err := g.zr.Reset(g.src); err != nil {
				return 0, err
			}
			g.zr.Multistream(false)
			continue
		}
		for {
			b, err := g.src.ReadByte()
			switch {
			case err == io.EOF:
				return 0, io.EOF
			case err != nil:
				return 0, err
			case b != 0:
				return 0, errors.New("data after the gzip stream that are neither a gzip member nor zero padding")
			}
		}
	}
}

// truncation names the error of a gzip stream that ends early.
type truncation struct{ r io.Reader }

func (t truncation) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err == io.ErrUnexpectedEOF {
		err = errors.New("the gzip stream ends early (the file is truncated)")
	}
	return n, err
}
