package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/kernelad/anomaly/internal/csr"
)

// maxLIBSVMIndex bounds feature indices in LIBSVM files.
const maxLIBSVMIndex = math.MaxInt32

// maxLineBytes bounds one line of a LIBSVM or ARFF file.
const maxLineBytes = 64 << 20

// lineLimit is the longest line the LIBSVM and ARFF readers take under
// opt: maxLineBytes, or the CSV reader's share of the memory budget when
// that is smaller (a 60 MB comment line was read whole under 4 MB).
func lineLimit(opt Options) int { return min(maxLineBytes, recordLimit(opt)) }

// lineTooLong is the error of a line of limit bytes or more: a
// *MemoryError when the budget set the limit.
func lineTooLong(limit int, opt Options) error {
	if limit < maxLineBytes {
		return overlong("line", limit, opt.MaxBytes)
	}
	return fmt.Errorf("line longer than %d bytes", limit)
}

// overlong is the *MemoryError of a unit ("line", "record") longer than
// limit, the share of the budget the readers take for one (recordLimit:
// reading and splitting it costs about four times its length).
func overlong(unit string, limit int, budget int64) *MemoryError {
	return &MemoryError{What: fmt.Sprintf("its %s is longer than %s; %ss that long", unit, FormatBytes(int64(limit)), unit), Need: 4 * int64(limit), Max: budget}
}

func readLIBSVMAt(ra io.ReaderAt, size int64, path string, opt Options) (*Dataset, error) {
	return readLIBSVM(io.NewSectionReader(ra, 0, size), path, opt, size)
}

// checkEntry is the error of the token index:value, parsed as idx (ok
// when it is an integer) and v (verr from strconv.ParseFloat), after the
// previous index prev of its line; nil when the entry is valid.
func checkEntry(tok []byte, idx int, ok bool, prev int, v float64, verr error) error {
	switch {
	case ok && idx == 0:
		// scikit-learn's dump_svmlight_file writes zero-based indices
		// unless told otherwise: said only "want an integer from 1".
		return fmt.Errorf("index 0 in %q: LIBSVM indices start at 1 (scikit-learn's dump_svmlight_file writes them from 0 unless given zero_based=False; or add 1 to every index)", clip(string(tok)))
	case !ok || idx < 1 || idx > maxLIBSVMIndex:
		return fmt.Errorf("bad index in %q: want an integer from 1 to %d", clip(string(tok)), maxLIBSVMIndex)
	case idx <= prev:
		return fmt.Errorf("index %d in %q does not increase (previous index %d)", idx, clip(string(tok)), prev)
	case verr != nil && !errors.Is(verr, strconv.ErrRange):
		return fmt.Errorf("bad value in %q: not a number", clip(string(tok)))
	case verr != nil || math.IsInf(v, 0):
		return fmt.Errorf("bad value in %q: infinite or out of the float64 range", clip(string(tok)))
	case math.IsNaN(v):
		return fmt.Errorf("bad value in %q: NaN is not allowed", clip(string(tok)))
	}
	return nil
}

// readLIBSVM reads LIBSVM/SVMlight text: one sample per line,
// "label index:value index:value ... # comment", indices one-based and
// strictly increasing, an optional qid:N after the label (ignored).
//
// Lines are sliced out of a 256 KiB read buffer and split into tokens in
// place (white space as strings.Fields has it: Unicode spaces separate,
// invalid UTF-8 does not); numbers are parsed from the bytes, so nothing is
// allocated per line or per token. A line of maxLineBytes or more is an
// error, as it was with bufio.Scanner.
//
// With opt.MaxBytes set, size (−1: unknown) lets the memory check project
// the values stored so far over the whole file, as the CSV reader does,
// once 256 lines have been read.
func readLIBSVM(r io.Reader, path string, opt Options, size int64) (*Dataset, error) {
	br := bufio.NewReaderSize(r, csvBuffer)
	if err := notText(br); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	skipBOM(br)
	b := csr.NewBuilder(0)
	var labels []float64
	plus := false // some label is written "+1"
	var cols []int
	width := 0 // the highest feature index
	var vals []float64
	var long []byte // a line longer than the read buffer
	maxLine := lineLimit(opt)
	line := 0
	var consumed int64 // bytes of the lines read
	for {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], text...)
			for err == bufio.ErrBufferFull && len(long) <= maxLine {
				text, err = br.ReadSlice('\n')
				long = append(long, text...)
			}
			text = long
		}
		if len(text) == 0 && err == io.EOF {
			break
		}
		line++
		consumed += int64(len(text))
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, &Error{Path: path, Err: fmt.Errorf("cannot read: %v", err)}
		}
		text = text[:len(text)-lengthNL(text)]
		if len(text) >= maxLine {
			return nil, &Error{Path: path, Line: line, Err: lineTooLong(maxLine, opt)}
		}
		if line == 1 && crInside(text) {
			return nil, &Error{Path: path, Line: line, Err: errCROnly}
		}
		if k := bytes.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		s, e := nextToken(text, 0)
		if s == e {
			continue
		}
		lerr := func(format string, a ...any) error {
			return &Error{Path: path, Line: line, Err: fmt.Errorf(format, a...)}
		}
		tok := text[s:e]
		if b.Rows() == 0 && bytes.IndexByte(text, ':') < 0 {
			if s2, e2 := nextToken(text, e); s2 != e2 || bytes.ContainsAny(tok, ",;") {
				// A header or a row of a table (numpy.savetxt writes .txt
				// files so): it was "bad label" or "bad token".
				return nil, lerr("%q holds no index:value pair: a LIBSVM/SVMlight file (as .libsvm, .svm, .svmlight and .txt files are read) has a label then index:value pairs on each line; a table of columns (as numpy.savetxt writes) is read from a .csv file (commas) or a .tsv file (tabs) with a header row naming the columns", clip(string(bytes.TrimSpace(text))))
			}
		}
		lab, err := parseFloat(tok)
		if err != nil || lab-lab != 0 || lab != math.Trunc(lab) || math.Abs(lab) > 1<<31 {
			if bytes.IndexByte(tok, ':') >= 0 {
				return nil, lerr("missing label: the line starts with %q", clip(string(tok)))
			}
			return nil, lerr("bad label %q: want an integer (1/0 or +1/-1)", clip(string(tok)))
		}
		if tok[0] == '+' {
			plus = true
		}
		cols, vals = cols[:0], vals[:0]
		prev := 0
		for k := 0; ; k++ {
			if s, e = nextToken(text, e); s == e {
				break
			}
			tok := text[s:e]
			colon := bytes.IndexByte(tok, ':')
			if colon < 0 {
				return nil, lerr("bad token %q: want index:value", clip(string(tok)))
			}
			is, vs := tok[:colon], tok[colon+1:]
			if string(is) == "qid" {
				if k != 0 {
					return nil, lerr("qid token %q must come right after the label", clip(string(tok)))
				}
				continue
			}
			idx, ok := parseIndex(is)
			v, err := parseFloat(vs)
			if err := checkEntry(tok, idx, ok, prev, v, err); err != nil {
				return nil, lerr("%v", err)
			}
			prev = idx
			width = max(width, idx) // explicit zeros count: the index exists
			cols = append(cols, idx-1)
			vals = append(vals, v)
		}
		if opt.MaxBytes > 0 {
			// The stored values grow under the budget, their copy counted
			// (the rows' pointers and labels take 16 bytes a row); past
			// the first 256 lines of a file of known size, to the count
			// projected from its size, so that they are copied once.
			total := b.Stored() + len(cols)
			if line >= 256 && size > consumed && consumed > 0 {
				total = max(total, int(min(float64(b.Stored())*float64(size)/float64(consumed)*1.02, float64(MaxElements))))
			}
			err := b.Reserve(total, func(bytes int64) error {
				return opt.checkBytes(bytes+16*int64(b.Rows()), func() string {
					return fmt.Sprintf("room for more values beside the %d stored in the first %d lines", b.Stored(), line)
				})
			})
			if err != nil {
				return nil, &Error{Path: path, Line: line, Err: err}
			}
		}
		if err := b.AddRow(cols, vals); err != nil {
			return nil, lerr("%v", err)
		}
		labels = append(labels, lab)
		if opt.MaxBytes > 0 {
			need := 16*int64(b.Stored()) + 16*int64(b.Rows())
			what := func() string { return fmt.Sprintf("the %d values stored in the first %d lines", b.Stored(), line) }
			if line >= 256 && size > consumed && consumed > 0 {
				need = int64(float64(need) * float64(size) / float64(consumed))
				what = func() string {
					return fmt.Sprintf("the values and rows (projected from the %d values of the first %d lines and the file's size)", b.Stored(), line)
				}
			}
			if err := opt.checkBytes(need, what); err != nil {
				return nil, &Error{Path: path, Line: line, Err: err}
			}
		}
	}
	if b.Rows() == 0 {
		return nil, &Error{Path: path, Err: errors.New("empty data: no sample lines")}
	}
	X := b.Build(max(opt.Features, width))
	_, d := X.Dims()
	if d == 0 {
		return nil, &Error{Path: path, Err: errors.New("empty data: no feature index:value pairs on any line")}
	}
	shape, err := applyShape(path, opt.Shape, d)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{X: X, Shape: shape, Source: path}
	ds.Y, ds.Class = libsvmLabels(labels, plus)
	if ds.Y != nil && !slices.Contains(labels, 0) && (plus || slices.Contains(labels, -1)) {
		// The opposite of the 1 = anomaly of every other format: say so,
		// since a file written the other way round would be read
		// silently inverted.
		ds.Notes = append(ds.Notes, "labels +1/−1 are read by LIBSVM's one-class convention, +1 normal and −1 anomaly (write 1 = anomaly, 0 = normal for the other way round)")
	}
	return ds, nil
}

// nextToken returns the bounds [s, e) of the first token of b at or after
// i, with s == e == len(b) when there is none. Tokens are separated by white
// space as in strings.Fields: ASCII space, \t, \n, \v, \f, \r and the
// Unicode spaces (unicode.IsSpace of a decoded rune; invalid UTF-8 is not
// space).
func nextToken(b []byte, i int) (s, e int) {
	for i < len(b) {
		if c := b[i]; c < utf8.RuneSelf {
			if asciiSpace[c] == 0 {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	s = i
	for i < len(b) {
		if c := b[i]; c < utf8.RuneSelf {
			if asciiSpace[c] != 0 {
				break
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return s, i
}

var asciiSpace = [utf8.RuneSelf]uint8{'\t': 1, '\n': 1, '\v': 1, '\f': 1, '\r': 1, ' ': 1}

// parseIndex is strconv.Atoi on bytes: plain digits (the usual index) are
// summed in place, anything else goes through Atoi.
func parseIndex(b []byte) (int, bool) {
	if len(b) > 0 && len(b) <= 18 {
		v := 0
		for _, c := range b {
			if c < '0' || c > '9' {
				goto general
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
general:
	v, err := strconv.Atoi(string(b))
	return v, err == nil
}

// libsvmLabels maps the label column. Labels all in {−1, +1} with a −1 or a
// "+1" written with its sign (plus) follow LIBSVM's one-class convention
// (+1 inlier → 0, −1 outlier → 1); otherwise {0, 1} is kept (1 = anomaly);
// anything else is a class index returned as class.
func libsvmLabels(lab []float64, plus bool) (y, class []int) {
	zeroOne, pm := true, true
	hasNeg := false
	for _, v := range lab {
		if v != 0 && v != 1 {
			zeroOne = false
		}
		if v != -1 && v != 1 {
			pm = false
		}
		if v == -1 {
			hasNeg = true
		}
	}
	out := make([]int, len(lab))
	switch {
	case pm && (hasNeg || plus):
		for i, v := range lab {
			if v == -1 {
				out[i] = 1
			}
		}
		return out, nil
	case zeroOne:
		for i, v := range lab {
			out[i] = int(v)
		}
		return out, nil
	}
	for i, v := range lab {
		out[i] = int(v)
	}
	return nil, out
}
