package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/james-bowman/sparse"
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
// once 256 lines have been read. Data of unknown size, and data that run
// past their size (a gzip trailer's size is only a hint), are collected
// by blocks, as collectDense does (collectSparse).
func readLIBSVM(r io.Reader, path string, opt Options, size int64) (*Dataset, error) {
	p, err := newLIBSVM(r, path, opt)
	if err != nil {
		return nil, err
	}
	var X *sparse.CSR
	var labels []int
	if size < 0 {
		X, labels, err = collectSparse(p, nil, nil, false, opt)
	} else {
		X, labels, err = p.collectSized(size)
	}
	if err != nil {
		return nil, err
	}
	return p.dataset(X, labels)
}

// dataset returns the Dataset of the rows X (of any width) and labels
// read by p.
func (p *libsvmRows) dataset(X *sparse.CSR, labels []int) (*Dataset, error) {
	raw := X.RawMatrix()
	if raw.I == 0 {
		return nil, &Error{Path: p.path, Err: errors.New("empty data: no sample lines")}
	}
	X = sparse.NewCSR(raw.I, max(p.opt.Features, p.width), raw.Indptr, raw.Ind, raw.Data)
	_, d := X.Dims()
	if d == 0 {
		return nil, &Error{Path: p.path, Err: errors.New("empty data: no feature index:value pairs on any line")}
	}
	shape, err := applyShape(p.path, p.opt.Shape, d)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{X: X, Shape: shape, Source: p.path}
	rule := p.labels.rule(true)
	ds.Y, ds.Class = rule.Resolve(labels)
	if rule.OneClass {
		// The opposite of the 1 = anomaly of every other format: say so,
		// since a file written the other way round would be read
		// silently inverted.
		ds.Notes = append(ds.Notes, libsvmOneClassNote)
	}
	return ds, nil
}

// libsvmOneClassNote is the note of LIBSVM labels read by the one-class
// convention.
const libsvmOneClassNote = "labels +1/−1 are read by LIBSVM's one-class convention, +1 normal and −1 anomaly (write 1 = anomaly, 0 = normal for the other way round)"

// collectSized reads the rows of a file of size bytes into one CSR
// matrix, growing its values under the budget from the projection of the
// values stored so far over the file's size. Should the data run past
// size, the rest goes into blocks (collectSparse).
func (p *libsvmRows) collectSized(size int64) (*sparse.CSR, []int, error) {
	opt := p.opt
	b := csr.NewBuilder(0)
	var labels []int
	for {
		if err := p.read(); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, err
		}
		if p.consumed > size {
			// More data than the size said: the rest by blocks.
			return collectSparse(p, b.Build(0), labels, true, opt)
		}
		line := p.line
		if opt.MaxBytes > 0 {
			// The stored values grow under the budget, their copy counted
			// (the rows' pointers and labels take 16 bytes a row); past
			// the first 256 lines of a file of known size, to the count
			// projected from its size, so that they are copied once.
			total := b.Stored() + len(p.cols)
			if line >= 256 && size > p.consumed && p.consumed > 0 {
				total = max(total, int(min(float64(b.Stored())*float64(size)/float64(p.consumed)*1.02, float64(MaxElements))))
			}
			err := b.Reserve(total, func(bytes int64) error {
				return opt.checkBytes(bytes+16*int64(b.Rows()), func() string {
					return fmt.Sprintf("room for more values beside the %d stored in the first %d lines", b.Stored(), line)
				})
			})
			if err != nil {
				return nil, nil, &Error{Path: p.path, Line: line, Err: err}
			}
		}
		if err := b.AddRow(p.cols, p.vals); err != nil {
			return nil, nil, p.lerr("%v", err)
		}
		labels = append(labels, p.lab)
		if opt.MaxBytes > 0 {
			need := 16*int64(b.Stored()) + 16*int64(b.Rows())
			what := func() string { return fmt.Sprintf("the %d values stored in the first %d lines", b.Stored(), line) }
			if line >= 256 && size > p.consumed && p.consumed > 0 {
				need = int64(float64(need) * float64(size) / float64(p.consumed))
				what = func() string {
					return fmt.Sprintf("the values and rows (projected from the %d values of the first %d lines and the file's size)", b.Stored(), line)
				}
			}
			if err := opt.checkBytes(need, what); err != nil {
				return nil, nil, &Error{Path: p.path, Line: line, Err: err}
			}
		}
	}
	return b.Build(0), labels, nil
}

// collectSparse reads the rest of the rows of p after first (the rows
// collected already, or nil) and labels into one CSR matrix, the row p
// has read first when pending is set, by blocks: each
// block holds at most blockBytes and at most half of what the blocks
// before it hold, and before each the blocks, the new one and their final
// copy into one matrix are checked against the budget, as collectDense
// does for dense data of unknown size.
func collectSparse(p *libsvmRows, first *sparse.CSR, labels []int, pending bool, opt Options) (*sparse.CSR, []int, error) {
	type block struct {
		indptr, ind []int // indptr from 0
		data        []float64
		y           []int
	}
	var blocks []block
	var heldRows, heldVals int
	if first != nil {
		raw := first.RawMatrix()
		blocks = append(blocks, block{raw.Indptr, raw.Ind, raw.Data, labels})
		heldRows, heldVals = raw.I, len(raw.Data)
	}
	const most = blockBytes / 16 // rows or values of a full block (16 bytes each)
	var cur block
	for {
		if pending {
			pending = false
		} else if err := p.read(); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, err
		}
		nv := len(p.cols)
		if cur.indptr == nil || len(cur.y) == cap(cur.y) || len(cur.ind)+nv > cap(cur.ind) {
			if cur.indptr != nil {
				blocks = append(blocks, cur)
				heldRows += len(cur.y)
				heldVals += len(cur.ind)
			}
			rows := min(max(256, heldRows/2), most)
			vals := max(min(max(4096, heldVals/2), most), nv)
			if need := 2 * 16 * int64(heldRows+rows+heldVals+vals); opt.MaxBytes > 0 && need > opt.MaxBytes {
				return nil, nil, &Error{Path: p.path, Line: p.line, Err: &MemoryError{
					What: fmt.Sprintf("the %d rows and %d values read from the first %s of the data, room for more and their copy into one matrix", heldRows, heldVals, FormatBytes(p.consumed)),
					Need: need, Max: opt.MaxBytes}}
			}
			cur = block{indptr: make([]int, 1, rows+1), ind: make([]int, 0, vals), data: make([]float64, 0, vals), y: make([]int, 0, rows)}
		}
		for k, j := range p.cols {
			if v := p.vals[k]; v != 0 { // explicit zeros are not stored
				cur.ind = append(cur.ind, j)
				cur.data = append(cur.data, v)
			}
		}
		cur.indptr = append(cur.indptr, len(cur.ind))
		cur.y = append(cur.y, p.lab)
	}
	if cur.indptr != nil {
		blocks = append(blocks, cur)
		heldRows += len(cur.y)
		heldVals += len(cur.ind)
	}
	if len(blocks) == 1 {
		b := blocks[0]
		if len(b.ind) == 0 {
			b.ind, b.data = nil, nil // as csr.Builder has them
		}
		return sparse.NewCSR(len(b.indptr)-1, 0, b.indptr, b.ind, b.data), b.y, nil
	}
	indptr := make([]int, 1, heldRows+1)
	var ind []int
	var data []float64
	if heldVals > 0 {
		ind, data = make([]int, 0, heldVals), make([]float64, 0, heldVals)
	}
	y := make([]int, 0, heldRows)
	for i, b := range blocks {
		base := len(ind)
		for _, e := range b.indptr[1:] {
			indptr = append(indptr, base+e)
		}
		ind = append(ind, b.ind...)
		data = append(data, b.data...)
		y = append(y, b.y...)
		blocks[i] = block{}
	}
	return sparse.NewCSR(heldRows, 0, indptr, ind, data), y, nil
}

// libsvmRows parses the sample lines of a LIBSVM file one at a time:
// read leaves a line's label and index:value pairs in lab, cols (0-based)
// and vals. Load collects them into one matrix, a File's Scan into
// chunks.
type libsvmRows struct {
	br       *bufio.Reader
	path     string
	opt      Options
	maxLine  int
	long     []byte // a line longer than the read buffer
	line     int
	consumed int64 // bytes of the lines read
	rows     int   // sample lines read
	width    int   // the highest feature index
	// limit, when positive, is the width the rows are read with: an
	// index past it is an error (a *WidthError).
	limit int
	// indexOnly skips the values (a pass that finds the width): their
	// errors are left to the pass that reads them.
	indexOnly bool
	labels    libsvmLabelCount
	pending   bool // the line read is not in a chunk yet (fill)
	finished  bool // the pass has read every line

	lab  int
	cols []int
	vals []float64
}

func newLIBSVM(r io.Reader, path string, opt Options) (*libsvmRows, error) {
	br := bufio.NewReaderSize(r, csvBuffer)
	if err := notText(br); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	skipBOM(br)
	return &libsvmRows{br: br, path: path, opt: opt, maxLine: lineLimit(opt)}, nil
}

func (p *libsvmRows) lerr(format string, a ...any) error {
	return &Error{Path: p.path, Line: p.line, Err: fmt.Errorf(format, a...)}
}

// read reads the next sample line; io.EOF after the last.
func (p *libsvmRows) read() error {
	br, maxLine := p.br, p.maxLine
	for {
		text, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			p.long = append(p.long[:0], text...)
			for err == bufio.ErrBufferFull && len(p.long) <= maxLine {
				text, err = br.ReadSlice('\n')
				p.long = append(p.long, text...)
			}
			text = p.long
		}
		if len(text) == 0 && err == io.EOF {
			return io.EOF
		}
		p.line++
		p.consumed += int64(len(text))
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return &Error{Path: p.path, Err: fmt.Errorf("cannot read: %v", err)}
		}
		text = text[:len(text)-lengthNL(text)]
		if len(text) >= maxLine {
			return &Error{Path: p.path, Line: p.line, Err: lineTooLong(maxLine, p.opt)}
		}
		if p.line == 1 && crInside(text) {
			return &Error{Path: p.path, Line: p.line, Err: errCROnly}
		}
		if k := bytes.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		s, e := nextToken(text, 0)
		if s == e {
			continue
		}
		tok := text[s:e]
		if p.rows == 0 && bytes.IndexByte(text, ':') < 0 {
			if s2, e2 := nextToken(text, e); s2 != e2 || bytes.ContainsAny(tok, ",;") {
				// A header or a row of a table (numpy.savetxt writes .txt
				// files so): it was "bad label" or "bad token".
				return p.lerr("%q holds no index:value pair: a LIBSVM/SVMlight file (as .libsvm, .svm, .svmlight and .txt files are read) has a label then index:value pairs on each line; a table of columns (as numpy.savetxt writes) is read from a .csv file (commas) or a .tsv file (tabs) with a header row naming the columns", clip(string(bytes.TrimSpace(text))))
			}
		}
		lab, err := parseFloat(tok)
		if err != nil || lab-lab != 0 || lab != math.Trunc(lab) || math.Abs(lab) > 1<<31 {
			if bytes.IndexByte(tok, ':') >= 0 {
				return p.lerr("missing label: the line starts with %q", clip(string(tok)))
			}
			return p.lerr("bad label %q: want an integer (1/0 or +1/-1)", clip(string(tok)))
		}
		p.lab = int(lab)
		p.labels.add(p.lab, tok[0] == '+')
		p.cols, p.vals = p.cols[:0], p.vals[:0]
		prev := 0
		for k := 0; ; k++ {
			if s, e = nextToken(text, e); s == e {
				break
			}
			tok := text[s:e]
			colon := bytes.IndexByte(tok, ':')
			if colon < 0 {
				return p.lerr("bad token %q: want index:value", clip(string(tok)))
			}
			is, vs := tok[:colon], tok[colon+1:]
			if string(is) == "qid" {
				if k != 0 {
					return p.lerr("qid token %q must come right after the label", clip(string(tok)))
				}
				continue
			}
			idx, ok := parseIndex(is)
			var v float64
			var verr error
			if !p.indexOnly {
				v, verr = parseFloat(vs)
			}
			if err := checkEntry(tok, idx, ok, prev, v, verr); err != nil {
				return p.lerr("%v", err)
			}
			if p.limit > 0 && idx > p.limit {
				return &Error{Path: p.path, Line: p.line, Err: &WidthError{Index: idx, Width: p.limit}}
			}
			prev = idx
			p.width = max(p.width, idx) // explicit zeros count: the index exists
			p.cols = append(p.cols, idx-1)
			p.vals = append(p.vals, v)
		}
		p.rows++
		return nil
	}
}

// WidthError is the error of a LIBSVM row with a feature index past the
// width a File reads the file with (Options.Features: the features of the
// model that scores it).
type WidthError struct {
	Index int // one-based, as the file writes it
	Width int
}

func (e *WidthError) Error() string {
	return fmt.Sprintf("feature index %d is past the %d features the data are read with (indices 1 to %d)", e.Index, e.Width, e.Width)
}

// libsvmLabelCount counts LIBSVM labels as they are read, for the rule
// of libsvmLabels, which can be applied only once every label is read.
type libsvmLabelCount struct {
	n                   int
	notZeroOne, notPlus int  // labels other than 0 and 1; other than −1 and +1
	neg, plus           bool // some label is −1; some label is written "+1"
}

func (c *libsvmLabelCount) add(v int, plus bool) {
	c.n++
	if v != 0 && v != 1 {
		c.notZeroOne++
	}
	if v != -1 && v != 1 {
		c.notPlus++
	}
	if v == -1 {
		c.neg = true
	}
	if plus {
		c.plus = true
	}
}

// rule returns what the labels counted are: LIBSVM's one-class convention
// when they are all +1 or −1 and some is −1 or written "+1" (+1 an
// inlier → 0, −1 an outlier → 1); anomaly labels when they are 0 and 1;
// a class index otherwise. final says whether every label is counted.
func (c libsvmLabelCount) rule(final bool) Labels {
	switch {
	case c.notPlus == 0 && (c.neg || c.plus):
		return Labels{Kind: AnomalyLabels, OneClass: true, Final: final}
	case c.notZeroOne == 0:
		return Labels{Kind: AnomalyLabels, Final: final}
	}
	return Labels{Kind: ClassLabels, Final: final}
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
	var c libsvmLabelCount
	out := make([]int, len(lab))
	for i, v := range lab {
		out[i] = int(v)
		c.add(out[i], false)
	}
	c.plus = plus
	return c.rule(true).Resolve(out)
}
