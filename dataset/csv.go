package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"gonum.org/v1/gonum/mat"
)

// readTSV reads tab-separated values (IANA text/tab-separated-values): the
// CSV rules of readCSV but for the separator, a tab, and quotes, which are
// characters like any other (a field cannot hold a tab or a line break).
func readTSV(r io.Reader, size int64, path string, opt Options) (*Dataset, error) {
	return readDelimited(newTSVScanner(r), size, path, opt)
}

// readCSV reads a CSV file with a header row (see readDelimited).
func readCSV(r io.Reader, size int64, path string, opt Options) (*Dataset, error) {
	return readDelimited(newCSVScanner(r), size, path, opt)
}

// skipBOM drops a UTF-8 byte order mark at the start of a text file, as
// Excel and R's fileEncoding="UTF-8-BOM" write it: before a quoted header
// it made the first quote a bare one (Python's utf-8-sig reads it).
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3)
	}
}

// errGzipped is the error of gzip data in a file named as text.
var errGzipped = errors.New("the file is gzip-compressed: give it a .gz extension (as .csv.gz) to read it through gzip")

// readDelimited reads the records of s, a header row then the data. Row
// numbers are the line on which a record starts (the header is row 1 when
// it is the first line); column numbers count every column of the file
// from 1, the label included. size, when not negative, is the file size,
// used to size the value buffer.
func readDelimited(s *csvScanner, size int64, path string, opt Options) (*Dataset, error) {
	p, err := newDelimited(s, path, opt)
	if err != nil {
		return nil, err
	}
	data, y, err := collectDense(p, size, opt)
	if err != nil {
		return nil, err
	}
	n := len(data) / p.d
	if err := p.finish(); err != nil {
		return nil, err
	}
	labels := p.labelRule()
	if labels.OneClass {
		for i, v := range y {
			y[i] = labels.Anomaly(v)
		}
	}
	shape, err := applyShape(path, opt.Shape, p.d)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{X: mat.NewDense(n, p.d, data[:n*p.d:n*p.d]), Y: y, Shape: shape, Columns: p.l.cols, ColumnNumbers: p.l.colNum, Source: path, Notes: p.notes()}
	return ds, nil
}

// delimited parses the data rows of a CSV or TSV file, one at a time,
// after newDelimited has read its header: read takes the next record,
// parse converts it into a row of values and a label. Load collects the
// rows into one buffer, a File's Scan into chunks; the checks and the
// messages are the same.
type delimited struct {
	s        *csvScanner
	path     string
	l        *csvLayout
	hr       int   // the header's row
	ncol, d  int   // columns of the file, features
	start    int64 // bytes before the first data row
	n        int   // data rows read
	rec      [][]byte
	row      int // the row of rec
	labels   labelCount
	finished bool
}

// newDelimited reads the header of s and lays out its columns.
func newDelimited(s *csvScanner, path string, opt Options) (*delimited, error) {
	s.maxRecord, s.budget = recordLimit(opt), opt.MaxBytes
	if opt.MaxBytes > 0 {
		s.maxFields = int(max(min(opt.MaxBytes/4/headerFieldBytes, math.MaxInt32), 1024))
	}
	if isGzip(s.br) {
		return nil, &Error{Path: path, Err: errGzipped}
	}
	if err := notText(s.br); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	skipBOM(s.br)
	if err := s.sepLine(); err != nil {
		return nil, &Error{Path: path, Row: 1, Err: err}
	}
	s.header = true
	rec, err := s.next()
	s.header = false
	if err == io.EOF {
		return nil, &Error{Path: path, Err: errors.New("empty file: need a header row and at least one data row")}
	}
	if err != nil {
		return nil, csvErr(path, err)
	}
	hr := s.recLine
	header := make([]string, len(rec))
	for j, f := range rec {
		header[j] = string(f)
	}
	l, err := csvHeader(header, s.comma, path, hr, opt)
	if err != nil {
		return nil, err
	}
	if opt.MaxBytes > 0 {
		// Under a budget a longer row stops as soon as it passes the
		// header's count (a quoted one says "more than"); without one
		// every field is split and counted, as encoding/csv does.
		s.maxFields = len(header)
	}
	return &delimited{s: s, path: path, l: l, hr: hr, ncol: len(header), d: len(l.cols), start: s.offset}, nil
}

func (p *delimited) cols() int     { return p.d }
func (p *delimited) labeled() bool { return p.l.label >= 0 }

// read reads the next data record, checking its number of fields; io.EOF
// after the last.
func (p *delimited) read() error {
	for {
		rec, err := p.s.next()
		if err == io.EOF {
			return io.EOF
		}
		if err != nil {
			var tf *tooManyFields
			if errors.As(err, &tf) {
				tf.hint = commentHint(nil, p.l.header[0], p.hr)
			}
			return csvErr(p.path, err)
		}
		if len(rec) == 1 && len(bytes.TrimSpace(rec[0])) == 0 && p.ncol > 1 {
			// encoding/csv's rules (which this scanner keeps) skip empty
			// lines; a line of blanks is also taken as empty.
			continue
		}
		p.n++
		p.rec, p.row = rec, p.s.recLine
		if len(rec) != p.ncol {
			return &Error{Path: p.path, Row: p.row, Err: fmt.Errorf("has %d fields, the header has %d%s", len(rec), p.ncol, commentHint(rec[0], p.l.header[0], p.hr))}
		}
		return nil
	}
}

// parse converts the record read into dst, its d values, and returns its
// label as read (see labelCount), 0 when the file has none.
func (p *delimited) parse(dst []float64) (int, error) {
	l, k, lab := p.l, 0, 0
	for j, cell := range p.rec {
		cell = bytes.TrimSpace(cell)
		if l.skip[j] {
			if err := l.skipped(p.path, p.row, j, cell); err != nil {
				return 0, err
			}
			continue
		}
		if j == l.label {
			v, err := l.labelCell(cell, p.path, p.row)
			if err != nil {
				return 0, err
			}
			if v <= -2 {
				// A word: its meaning now; resolve checks at the end
				// that the words make a pair and do not mix with numbers.
				v = labelWord(l.words[-2-v])
			}
			p.labels.add(v)
			lab = v
			continue
		}
		v, err := parseCell(cell)
		if err != nil {
			hint := ""
			if j == 0 {
				hint = commentHint(cell, "", p.hr) + cellHint(cell, p.ncol, p.s.comma, p.s.quotes)
			}
			return 0, &Error{Path: p.path, Row: p.row, Col: j + 1, Err: fmt.Errorf("%q: %v%s", l.header[j], err, hint)}
		}
		dst[k] = v
		k++
	}
	return lab, nil
}

// at returns err as the error of the record read.
func (p *delimited) at(err error) error { return &Error{Path: p.path, Row: p.row, Err: err} }

// offset returns the bytes of data rows read, and the bytes before them.
func (p *delimited) offset() (done, start int64) { return p.s.offset - p.start, p.start }

// finish checks what only the end of the data decides: that there were
// rows, and that the label column's words make a pair and do not mix
// with numbers.
func (p *delimited) finish() error {
	if p.n == 0 {
		return &Error{Path: p.path, Err: errors.New("no data rows after the header")}
	}
	if err := p.l.checkWords(p.path); err != nil {
		return err
	}
	p.finished = true
	return nil
}

// labelRule says how the labels parse returned read once the rows are
// all read: anomaly labels, by the one-class convention when they are
// only 1 and −1 with the 1s a majority (signLabels).
func (p *delimited) labelRule() Labels {
	if p.l.label < 0 {
		return Labels{Final: true}
	}
	return Labels{Kind: AnomalyLabels, OneClass: p.finished && p.labels.oneClass(), Final: p.finished}
}

// notes returns the layout's notes and, once the rows are all read, the
// note of one-class labels.
func (p *delimited) notes() []string {
	notes := p.l.notes
	if p.finished && p.l.label >= 0 && p.labels.oneClass() {
		notes = append(slices.Clip(notes), p.labels.note())
	}
	return notes
}

// commentHint is what a row error adds when a comment line is the likely
// cause: the row's first field, first, or the header's, header (row hr),
// starts with '#'. It is "" otherwise.
func commentHint(first []byte, header string, hr int) string {
	switch {
	case bytes.HasPrefix(bytes.TrimSpace(first), []byte("#")):
		return "; the row starts with #, as a comment line does: comment lines are not read (remove them)"
	case strings.HasPrefix(header, "#"):
		return fmt.Sprintf("; the header, row %d, starts with #: if it is a comment line, remove it (comment lines are not read)", hr)
	}
	return ""
}

// cellHint is what the error of a first cell that is not a number adds
// when the cause is likely the file's format rather than the value: an
// ARFF keyword (an ARFF file read as CSV, its header a comment line), the
// numbers of a row separated by spaces in a file read as one column, or
// quotes in a .tsv file (which has no quoting). It is "" otherwise.
func cellHint(cell []byte, ncol int, comma byte, quotes bool) string {
	c := string(bytes.TrimSpace(cell))
	lc := strings.ToLower(c)
	switch {
	case strings.HasPrefix(lc, "@relation") || strings.HasPrefix(lc, "@attribute") || strings.HasPrefix(lc, "@data"):
		return "; the row is an ARFF header line: read the data as ARFF (a file named .arff; on standard input, --data-format arff)"
	case ncol == 1 && len(strings.Fields(c)) > 1:
		for _, f := range strings.Fields(c) {
			if _, err := strconv.ParseFloat(f, 64); err != nil {
				return ""
			}
		}
		what := map[byte]string{',': "commas (a .csv file)", '\t': "tabs (a .tsv file)"}[comma]
		return fmt.Sprintf("; the file reads as one column whose cells hold numbers separated by spaces: fields here are separated by %s; convert the file", what)
	case !quotes && len(c) >= 2 && c[0] == '"' && c[len(c)-1] == '"':
		return "; a .tsv file has no quoting, so its quotes are read as characters: write it without quotes (R: write.table(..., quote = FALSE))"
	}
	return ""
}

// csvLayout is what a CSV header row decides: the label column (−1 if
// none), the columns that are not read, and the feature names; and the
// words the label column holds, if it holds words.
type csvLayout struct {
	header []string // trimmed, without a byte-order mark
	label  int
	skip   []bool
	empty  int // the unnamed last column of a trailing comma, which must stay empty; −1 if none
	cols   []string
	colNum []int // the one-based column of the file of each of cols
	notes  []string
	words  []string // distinct label words, in order of appearance
	byY    bool     // the label column was taken for its name y
	// The rows of the first label 0 or 1 and of the first word, for the
	// message of a column that mixes them.
	numRow, wordRow int
}

// labelCell is labelText on bytes: the usual 1, 0 or −1 is parsed in
// place.
func (l *csvLayout) labelCell(b []byte, path string, row int) (int, error) {
	if len(b) > 0 {
		if v, err := parseFloat(b); err == nil && (v == 0 || v == 1 || v == -1) {
			if v != -1 && l.numRow == 0 {
				l.numRow = row
			}
			return int(v), nil
		}
	}
	return l.labelText(string(b), path, row)
}

// labelText parses the label cell s of row: 1, 0, −1 or empty as
// parseLabel has them, or a word, coded −2 − k for the k-th distinct word
// (words compare without case; resolve turns the codes into labels once the file is read). A number
// other than 1, 0 or −1, or a third word, is an error.
func (l *csvLayout) labelText(s, path string, row int) (int, error) {
	v, err := parseLabel(s)
	if err == nil {
		if (v == 0 || v == 1) && l.numRow == 0 {
			l.numRow = row
		}
		return v, nil
	}
	bad := func(err error) error {
		return &Error{Path: path, Row: row, Col: l.label + 1, Err: fmt.Errorf("label %q: %v", clip(s), err)}
	}
	if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
		if l.byY {
			err = fmt.Errorf("%v; the column is taken as the labels for its name %q: if it holds a feature, rename it", err, l.header[l.label])
		}
		return 0, bad(err)
	}
	k := slices.IndexFunc(l.words, func(w string) bool { return strings.EqualFold(w, s) })
	if k < 0 {
		if len(l.words) == 2 {
			return 0, bad(fmt.Errorf("a third word after %q and %q: %s", l.words[0], l.words[1], labelRule))
		}
		l.words = append(l.words, s)
		k = len(l.words) - 1
		if k == 0 {
			l.wordRow = row
		}
	}
	return -2 - k, nil
}

// labelRule says which labels a CSV file may hold.
const labelRule = "labels are 1 (anomaly), 0 (normal) and -1 or empty (unlabeled), or the two words of a normal/anomaly pair (no/yes, normal/anomaly, inlier/outlier, false/true, n/y, in any case)"

// resolve turns the word codes of labelText in y into labels, once the
// file is read, after checkWords.
func (l *csvLayout) resolve(y []int, path string) error {
	if err := l.checkWords(path); err != nil {
		return err
	}
	for i, v := range y {
		if v <= -2 {
			y[i] = labelWord(l.words[-2-v])
		}
	}
	return nil
}

// checkWords checks the words labelText met once the file is read: two
// words must be a normal/anomaly pair (arffBinary), a single word one of
// either kind, and words and numbers do not mix. Each word's label is
// then its meaning (labelWord), which delimited.parse takes at once.
func (l *csvLayout) checkWords(path string) error {
	if len(l.words) == 0 {
		return nil
	}
	if l.numRow > 0 {
		return &Error{Path: path, Row: max(l.numRow, l.wordRow), Col: l.label + 1, Err: fmt.Errorf("label column %q holds both words (%q in row %d) and numbers (in row %d): %s", l.header[l.label], l.words[0], l.wordRow, l.numRow, labelRule)}
	}
	ok := arffBinary(l.words) != nil
	if len(l.words) == 1 {
		ok = labelWord(l.words[0]) >= 0
	}
	if !ok {
		return &Error{Path: path, Col: l.label + 1, Err: fmt.Errorf("label column %q holds the words %q, which are not a normal/anomaly pair: %s", l.header[l.label], l.words, labelRule)}
	}
	return nil
}

// csvHeader reads the layout from the fields of the header row (row hr).
// Columns without a name (or with pandas' "Unnamed: N") are not features:
// the first is the row index pandas writes (to_csv without index=False),
// the last the empty column of a trailing comma (its cells must be empty,
// see skipped); an unnamed column elsewhere is an error. The first column
// named id is a row identifier and not read either.
func csvHeader(fields []string, comma byte, path string, hr int, opt Options) (*csvLayout, error) {
	header := make([]string, len(fields))
	for j, f := range fields {
		if strings.IndexByte(f, '\r') >= 0 {
			// The whole file was one line: it read as a header and
			// no data rows.
			return nil, &Error{Path: path, Row: hr, Err: errCROnly}
		}
		header[j] = strings.TrimSpace(f)
	}
	if err := separatorHint(header, comma); err != nil {
		return nil, &Error{Path: path, Row: hr, Err: err}
	}
	numeric := true
	for _, h := range header {
		if _, err := strconv.ParseFloat(h, 64); err != nil {
			numeric = false
			break
		}
	}
	if numeric {
		return nil, &Error{Path: path, Row: hr, Err: errors.New("no header row: the first row is all numbers; add a header naming the columns")}
	}
	l := &csvLayout{header: header, label: -1, skip: make([]bool, len(header)), empty: -1}
	if strings.HasPrefix(header[0], "# ") {
		l.notes = append(l.notes, fmt.Sprintf("column 1 is named %q: numpy.savetxt writes its header after \"# \" (give it comments='' to leave that out)", header[0]))
	}
	if opt.Label != "" {
		for j, h := range header {
			if strings.EqualFold(h, opt.Label) {
				l.label = j
				break
			}
		}
		if l.label < 0 {
			return nil, &Error{Path: path, Row: hr, Err: fmt.Errorf("no label column %q in the header (columns: %s)", opt.Label, listCols(header))}
		}
	} else {
		// A column named label, else one named y (a y beside a label
		// column is a feature, as x, y coordinates are).
		for _, name := range []string{"label", "y"} {
			if slices.ContainsFunc(opt.FeatureNames, func(f string) bool { return strings.EqualFold(f, name) }) {
				continue // a feature of the model, not its label
			}
			for j, h := range header {
				if strings.EqualFold(h, name) {
					if l.label >= 0 {
						return nil, &Error{Path: path, Row: hr, Err: fmt.Errorf("two label columns (%q and %q): name one with the label option", header[l.label], h)}
					}
					l.label = j
				}
			}
			if l.label >= 0 {
				l.byY = name == "y"
				break
			}
		}
	}
	ncol := len(header)
	id := false
	for j, h := range header {
		unnamed := h == "" || pandasUnnamed(h)
		switch {
		case j == l.label || ncol == 1:
		case unnamed && j == 0:
			l.skip[j] = true
			l.notes = append(l.notes, fmt.Sprintf("column 1 has no name in the header%s: it is taken as the row index (as pandas writes it without index=False) and not read", quotedName(h)))
		case unnamed && j == ncol-1:
			l.skip[j] = true
			l.empty = j
		case unnamed:
			return nil, &Error{Path: path, Row: hr, Col: j + 1, Err: fmt.Errorf("the column has no name in the header%s: name every column (only an unnamed first column, a row index, and an empty last column after a trailing comma are skipped)", quotedName(h))}
		case !id && strings.EqualFold(h, "id"):
			// A row identifier (Kaggle's and many exports' first column; the
			// DAMI files' id attribute, which the ARFF reader skips too):
			// read as a feature, its order alone can rank the rows.
			id = true
			l.skip[j] = true
			l.notes = append(l.notes, fmt.Sprintf("column %d, %q, is taken as the row identifier and not read (rename it to read it as a feature)", j+1, h))
		}
	}
	for j, h := range header {
		if j != l.label && !l.skip[j] {
			l.cols = append(l.cols, h)
			l.colNum = append(l.colNum, j+1)
		}
	}
	if len(l.cols) == 0 {
		return nil, &Error{Path: path, Row: hr, Err: fmt.Errorf("no feature columns: the columns (%s) are the label, a row index or a row identifier", listCols(header))}
	}
	// A name given to two feature columns (a column pasted twice, a
	// join): read, but said, as pandas renames the second a.1.
	first := map[string]int{}
	for i, h := range l.cols {
		if k, ok := first[h]; ok {
			l.notes = append(l.notes, fmt.Sprintf("columns %d and %d are both named %q (a column given twice?); both are read", l.colNum[k], l.colNum[i], h))
			break
		}
		first[h] = i
	}
	return l, nil
}

// pandasUnnamed reports whether a header cell is the name pandas gives a
// column that had none ("Unnamed: 0"), as a CSV with a row index gets
// once read by pandas and written again.
func pandasUnnamed(h string) bool {
	num, ok := strings.CutPrefix(h, "Unnamed: ")
	if !ok || num == "" {
		return false
	}
	for _, r := range num {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// quotedName is "" for an empty header cell and ` ("Unnamed: 3", pandas'
// name for an unnamed column)` for pandas' name.
func quotedName(h string) string {
	if h == "" {
		return ""
	}
	return fmt.Sprintf(" (%q, pandas' name for an unnamed column)", h)
}

// separatorHint is the error of a header read as one column that holds
// another common separator (a semicolon-separated file named .csv, a
// tab-separated one, a comma-separated .tsv), or is UTF-16 text; nil
// otherwise.
func separatorHint(header []string, comma byte) error {
	h := header[0]
	if strings.HasPrefix(h, "\xff\xfe") || strings.HasPrefix(h, "\xfe\xff") || strings.IndexByte(strings.Join(header, ""), 0) >= 0 {
		return errors.New("the file is UTF-16 text (as Excel's \"Unicode text\"); save it as UTF-8")
	}
	if len(header) != 1 {
		return nil
	}
	if libsvmLine(h) {
		return fmt.Errorf("the first line, %q, is a LIBSVM line (a label, then index:value pairs): read the data as LIBSVM (a file named .libsvm or .svm; on standard input, --data-format libsvm)", clip(h))
	}
	if len(h) >= 9 && strings.EqualFold(h[:9], "@relation") {
		return fmt.Errorf("the first line, %q, starts an ARFF header: read the data as ARFF (a file named .arff; on standard input, --data-format arff)", clip(h))
	}
	name := map[byte]string{',': "commas (a .csv file)", '\t': "tabs (a .tsv file)", ';': "semicolons"}
	for _, c := range []byte{';', '\t', ','} {
		if c != comma && strings.IndexByte(h, c) >= 0 {
			return fmt.Errorf("the header is one column, %q, that holds %s: fields here are separated by %s; convert the file (or rename it, if that is all that differs)", clip(h), name[c], name[comma])
		}
	}
	return nil
}

// libsvmLine reports whether s reads as a LIBSVM line: a number, then one
// or more index:value pairs with an integer index.
func libsvmLine(s string) bool {
	f := strings.Fields(s)
	if len(f) < 2 {
		return false
	}
	if _, err := strconv.ParseFloat(f[0], 64); err != nil {
		return false
	}
	for _, t := range f[1:] {
		i, _, ok := strings.Cut(t, ":")
		if _, err := strconv.Atoi(i); !ok || (err != nil && i != "qid") {
			return false
		}
	}
	return true
}

// skipped checks the trimmed cell of row, column j, a column that is not
// read: an unnamed last column must be empty.
func (l *csvLayout) skipped(path string, row, j int, cell []byte) error {
	if j == l.empty && len(cell) > 0 {
		return &Error{Path: path, Row: row, Col: j + 1, Err: fmt.Errorf("%q: the last column has no name in the header but holds values; name it", clip(string(cell)))}
	}
	return nil
}

// csvScanner reads the records of a CSV file exactly as encoding/csv does
// with Comma ',', no comment character, TrimLeadingSpace, no LazyQuotes and
// any number of fields per record — same fields, same skipped empty lines,
// same \r\n handling, same errors on the same lines — but without
// allocating: a record is a list of byte slices into the read buffer (or,
// for a record with quotes, into one reused buffer), valid until the next
// call. Lines without a quote, the usual case, are split on commas in
// place.
type csvScanner struct {
	comma   byte // the separator: ',', or '\t' for TSV
	quotes  bool // quoted fields (CSV); TSV has none
	br      *bufio.Reader
	raw     []byte   // a line longer than the bufio buffer
	rec     []byte   // the unquoted fields of a record with quotes
	ends    []int    // end of each field in rec
	fields  [][]byte // the record returned
	numLine int      // lines read
	recLine int      // line on which the last record starts
	offset  int64    // bytes read
	// maxRecord bounds the bytes of one record (a line, or the lines of
	// a quoted field): see recordLimit.
	maxRecord int
	budget    int64 // Options.MaxBytes, for recordTooLong
	// maxFields, when positive, bounds the fields of a record under a
	// memory budget: the header's count for the data rows (a 24 MB line
	// of 12 million empty fields took 750 MB in field slices), the
	// budget's share for the header.
	maxFields int
	header    bool // the record being read is the header
}

// tooManyFields is the error of a record with more than maxFields fields.
type tooManyFields struct {
	line   int
	n, max int // n is 0 when not counted (a quoted record stops at max+1)
	header bool
	hint   string // a commentHint, appended
}

func (e *tooManyFields) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.text()) }

// text is the message without the line, which an *Error names as a row.
func (e *tooManyFields) text() string {
	if e.header {
		return fmt.Sprintf("the header has more than %d columns, as many as the memory budget allows", e.max)
	}
	if e.n > 0 {
		return fmt.Sprintf("has %d fields, the header has %d%s", e.n, e.max, e.hint)
	}
	return fmt.Sprintf("has more than %d fields, the header has %d%s", e.max, e.max, e.hint)
}

// headerFieldBytes is about what one header column costs while the header
// is read and laid out (its field slice, name string and layout entries).
const headerFieldBytes = 100

// recordTooLong is the error of a record longer than maxRecord.
type recordTooLong struct {
	line   int
	limit  int
	budget int64 // the memory budget it derives from, 0 if none
}

func (e *recordTooLong) Error() string {
	return fmt.Sprintf("line %d: longer than %s", e.line, FormatBytes(int64(e.limit)))
}

// maxRecordBytes bounds one record when no memory budget is set.
const maxRecordBytes = 1 << 30

// recordLimit returns the longest record the readers take under opt: a
// quarter of the memory budget (a line costs about 3.3 times its length
// while it is read and split: a 1 GiB line of one field peaked at
// 3.39 GB), or maxRecordBytes without a budget.
func recordLimit(opt Options) int {
	if opt.MaxBytes > 0 {
		return int(max(min(opt.MaxBytes/4, maxRecordBytes), 1<<10))
	}
	return maxRecordBytes
}

// csvBuffer is the read buffer size: large enough that most lines are
// sliced in place, small enough to stay in the CPU cache.
const csvBuffer = 256 << 10

func newCSVScanner(r io.Reader) *csvScanner {
	return &csvScanner{comma: ',', quotes: true, br: bufio.NewReaderSize(r, csvBuffer), maxRecord: maxRecordBytes}
}

// newTSVScanner splits lines on tabs, with no quoting.
func newTSVScanner(r io.Reader) *csvScanner {
	return &csvScanner{comma: '\t', br: bufio.NewReaderSize(r, csvBuffer), maxRecord: maxRecordBytes}
}

// csvSyntaxError is a malformed record, on the given line (encoding/csv's
// ParseError.Line).
// errUnclosedQuote is the syntax error of a quoted field that the file
// ends inside.
var errUnclosedQuote = errors.New(`a quoted field opens on this row and is never closed (a closing " is missing, or a stray " opened it)`)

type csvSyntaxError struct {
	line int
	err  error
}

func (e *csvSyntaxError) Error() string { return fmt.Sprintf("line %d: %v", e.line, e.err) }

// readLine is encoding/csv's: one line with its '\n', a trailing '\r'
// dropped at EOF and "\r\n" turned into "\n".
func (s *csvScanner) readLine() ([]byte, error) {
	line, err := s.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.raw = append(s.raw[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(s.raw) > s.maxRecord {
				return nil, &recordTooLong{line: s.numLine + 1, limit: s.maxRecord, budget: s.budget}
			}
			line, err = s.br.ReadSlice('\n')
			s.raw = append(s.raw, line...)
		}
		line = s.raw
	}
	n := len(line)
	if n > 0 && err == io.EOF {
		err = nil
		if line[n-1] == '\r' {
			line = line[:n-1]
		}
	}
	s.numLine++
	s.offset += int64(n)
	if n := len(line); n >= 2 && line[n-2] == '\r' && line[n-1] == '\n' {
		line[n-2] = '\n'
		line = line[:n-1]
	}
	return line, err
}

// sepLine skips Excel's separator line ("sep=," as the first line, which
// Excel writes and reads as the file's delimiter, not data) when it names
// the scanner's delimiter, and is an error naming the other delimiter when
// it does not. It read as a header "sep=" and a not-a-number "a" in row 2.
func (s *csvScanner) sepLine() error {
	b, _ := s.br.Peek(7)
	if len(b) < 5 || !strings.EqualFold(string(b[:4]), "sep=") {
		return nil
	}
	rest := string(b[5:])
	if rest != "" && rest != "\n" && rest != "\r\n" && !strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\r\n") {
		return nil // a longer first line: a column named sep=...
	}
	c := b[4]
	if c != s.comma {
		name := map[byte]string{',': "commas (a .csv file)", '\t': "tabs (a .tsv file)", ';': "semicolons"}
		what, ok := name[c]
		if !ok {
			what = fmt.Sprintf("%q", c)
		}
		return fmt.Errorf("the first line, %q, is Excel's separator line: the fields are separated by %s, and here by %s; convert the file (or rename it, if that is all that differs)", strings.TrimRight(string(b[:5]), "\r\n"), what, name[s.comma])
	}
	_, err := s.readLine()
	return err
}

// errCROnly is the error of a file whose lines end in a carriage return
// alone: the readers see one long first line.
var errCROnly = errors.New("the lines end in a carriage return alone (classic Mac OS line endings); convert them to newlines, as tr '\\r' '\\n' does")

// crInside reports whether line (without its '\n' or "\r\n") holds a
// carriage return before its last byte: the lines of the file end in a
// carriage return alone. A line-oriented reader checks its first line.
func crInside(line []byte) bool {
	i := bytes.IndexByte(line, '\r')
	return i >= 0 && i < len(line)-1
}

// lengthNL is the length of b's line ending: 1 for a '\n', else 0.
func lengthNL(b []byte) int {
	if len(b) > 0 && b[len(b)-1] == '\n' {
		return 1
	}
	return 0
}

// next returns the next record, or io.EOF after the last. A record may come
// with an error (a read error after its first line), as in encoding/csv.
func (s *csvScanner) next() ([][]byte, error) {
	var line []byte
	var errRead error
	for errRead == nil {
		line, errRead = s.readLine()
		if errRead == nil && len(line) == lengthNL(line) {
			continue // empty line
		}
		break
	}
	if errRead == io.EOF {
		return nil, io.EOF
	}
	s.recLine = s.numLine
	if s.quotes && bytes.IndexByte(line, '"') >= 0 {
		return s.quoted(line, errRead)
	}
	// No quote: the fields are the pieces between commas. encoding/csv's
	// TrimLeadingSpace drops leading white space of each; the caller trims
	// both sides of every field anyway.
	line = line[:len(line)-lengthNL(line)]
	if s.maxFields > 0 {
		if c := bytes.Count(line, []byte{s.comma}) + 1; c > s.maxFields {
			return nil, &tooManyFields{line: s.recLine, n: c, max: s.maxFields, header: s.header}
		}
	}
	s.fields = s.fields[:0]
	for {
		i := bytes.IndexByte(line, s.comma)
		if i < 0 {
			s.fields = append(s.fields, line)
			break
		}
		s.fields = append(s.fields, line[:i])
		line = line[i+1:]
	}
	return s.fields, errRead
}

func notSpace(r rune) bool { return !unicode.IsSpace(r) }

// quoted parses a record that holds a quote, following encoding/csv's
// readRecord step by step (quoted fields may span lines; "" is a quote).
func (s *csvScanner) quoted(line []byte, errRead error) ([][]byte, error) {
	s.rec = s.rec[:0]
	s.ends = s.ends[:0]
	posLine := s.numLine
	var err error
parseField:
	for {
		i := bytes.IndexFunc(line, notSpace)
		if i < 0 {
			i = len(line)
		}
		line = line[i:]
		if len(line) == 0 || line[0] != '"' {
			// Non-quoted field.
			i := bytes.IndexByte(line, ',')
			field := line
			if i >= 0 {
				field = field[:i]
			} else {
				field = field[:len(field)-lengthNL(field)]
			}
			if bytes.IndexByte(field, '"') >= 0 {
				err = &csvSyntaxError{line: s.numLine, err: csv.ErrBareQuote}
				break parseField
			}
			s.rec = append(s.rec, field...)
			s.ends = append(s.ends, len(s.rec))
			if s.maxFields > 0 && len(s.ends) > s.maxFields {
				err = &tooManyFields{line: s.recLine, max: s.maxFields, header: s.header}
				break parseField
			}
			if i >= 0 {
				line = line[i+1:]
				continue parseField
			}
			break parseField
		}
		// Quoted field.
		line = line[1:]
		opened := posLine
		for {
			i := bytes.IndexByte(line, '"')
			switch {
			case i >= 0:
				s.rec = append(s.rec, line[:i]...)
				line = line[i+1:]
				switch {
				case len(line) > 0 && line[0] == '"': // "" is a quote
					s.rec = append(s.rec, '"')
					line = line[1:]
				case len(line) > 0 && line[0] == ',': // end of field
					line = line[1:]
					s.ends = append(s.ends, len(s.rec))
					if s.maxFields > 0 && len(s.ends) > s.maxFields {
						err = &tooManyFields{line: s.recLine, max: s.maxFields, header: s.header}
						break parseField
					}
					continue parseField
				case lengthNL(line) == len(line): // end of line
					s.ends = append(s.ends, len(s.rec))
					break parseField
				default: // a quote inside a quoted field
					err = &csvSyntaxError{line: s.numLine, err: csv.ErrQuote}
					break parseField
				}
			case len(line) > 0:
				// The field goes on on the next line.
				s.rec = append(s.rec, line...)
				if errRead != nil {
					break parseField
				}
				if len(s.rec) > s.maxRecord {
					err = &recordTooLong{line: s.recLine, limit: s.maxRecord, budget: s.budget}
					break parseField
				}
				line, errRead = s.readLine()
				if len(line) > 0 {
					posLine++
				}
				if errRead == io.EOF {
					errRead = nil
				}
			default:
				// End of file inside the quotes: named where they
				// opened (the end of the file said nothing of it).
				if errRead == nil {
					err = &csvSyntaxError{line: opened, err: errUnclosedQuote}
					break parseField
				}
				s.ends = append(s.ends, len(s.rec))
				break parseField
			}
		}
	}
	if err == nil {
		err = errRead
	}
	s.fields = s.fields[:0]
	pre := 0
	for _, e := range s.ends {
		s.fields = append(s.fields, s.rec[pre:e])
		pre = e
	}
	return s.fields, err
}

func listCols(h []string) string {
	const max = 10
	q := make([]string, 0, max+1)
	for i, s := range h {
		if i == max {
			q = append(q, "...")
			break
		}
		q = append(q, strconv.Quote(s))
	}
	return strings.Join(q, ", ")
}

func csvErr(path string, err error) error {
	var se *csvSyntaxError
	if errors.As(err, &se) {
		return &Error{Path: path, Row: se.line, Err: fmt.Errorf("malformed CSV: %v", se.err)}
	}
	var tf *tooManyFields
	if errors.As(err, &tf) {
		return &Error{Path: path, Row: tf.line, Err: errors.New(tf.text())}
	}
	var tl *recordTooLong
	if errors.As(err, &tl) {
		if tl.budget > 0 {
			return &Error{Path: path, Row: tl.line, Err: overlong("record", tl.limit, tl.budget)}
		}
		return &Error{Path: path, Row: tl.line, Err: fmt.Errorf("a record longer than %s", FormatBytes(int64(tl.limit)))}
	}
	return &Error{Path: path, Err: fmt.Errorf("cannot read: %v", err)}
}

// parseFloat is strconv.ParseFloat on bytes. The string conversion does not
// allocate: ParseFloat does not keep its argument (its errors copy it), so
// the Go compiler builds the string in a stack buffer when it is at most 32
// bytes long — every float64 in shortest form is — and copies longer ones.
func parseFloat(b []byte) (float64, error) {
	return strconv.ParseFloat(string(b), 64)
}

// parseCell is parseValue on bytes: the usual finite number is parsed in
// place; anything else goes through parseValue for its message.
func parseCell(b []byte) (float64, error) {
	if len(b) > 0 {
		if v, err := parseFloat(b); err == nil && v-v == 0 {
			return v, nil
		}
	}
	return parseValue(string(b))
}

// missingMarks are the words common exports write for a missing value
// (R, pandas, SQL, Excel, Weka), lower-case.
var missingMarks = []string{"na", "n/a", "#n/a", "null", "none", "nil", "missing", "?"}

// parseValue parses a feature value: a finite decimal number.
func parseValue(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("empty cell (missing values are not supported)")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		switch {
		case errors.As(err, &ne) && ne.Err == strconv.ErrRange:
			return 0, fmt.Errorf("%q is out of the float64 range", clip(s))
		case slices.Contains(missingMarks, strings.ToLower(s)):
			return 0, fmt.Errorf("%q marks a missing value, and missing values are not supported: drop or impute those rows first", clip(s))
		case strings.Count(s, ",") == 1:
			if _, err := strconv.ParseFloat(strings.Replace(s, ",", ".", 1), 64); err == nil {
				if i := strings.IndexByte(s, ','); len(s)-i-1 == 3 && strings.IndexAny(s, ".eE") < 0 {
					// 1,000: a thousands separator as likely as a decimal comma.
					return 0, fmt.Errorf("%q has a comma: write numbers without thousands separators (%s) and with a decimal point (%s)", s, strings.Replace(s, ",", "", 1), strings.Replace(s, ",", ".", 1))
				}
				return 0, fmt.Errorf("%q has a decimal comma: write numbers with a decimal point (%s)", s, strings.Replace(s, ",", ".", 1))
			}
		}
		return 0, fmt.Errorf("%q is not a number", clip(s))
	}
	if math.IsNaN(v) {
		return 0, fmt.Errorf("%q: NaN is not allowed (missing values are not supported)", clip(s))
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: infinite values are not allowed", clip(s))
	}
	return v, nil
}

// parseLabel parses a label cell: 1 anomaly, 0 normal, −1 or empty unlabeled.
func parseLabel(s string) (int, error) {
	if s == "" {
		return -1, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err == nil {
		switch v {
		case 1:
			return 1, nil
		case 0:
			return 0, nil
		case -1:
			return -1, nil
		}
	}
	return 0, errors.New("labels must be 1 (anomaly), 0 (normal) or -1/empty (unlabeled)")
}
