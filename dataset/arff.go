package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

type arffAttr struct {
	name    string
	nominal []string // nil for numeric attributes
}

// readARFF reads ARFF: @relation, @attribute lines (numeric, real,
// integer, or one nominal class attribute), @data and rows, dense
// (comma-separated) or sparse ("{index value, ...}", omitted values 0).
// size, when not negative, is the file size: the value buffer grows as
// the CSV reader's does (growRows), projected from it.
func readARFF(r io.Reader, size int64, path string, opt Options) (*Dataset, error) {
	p, err := newARFF(r, path, opt)
	if err != nil {
		return nil, err
	}
	data, y, err := collectDense(p, size, opt)
	if err != nil {
		return nil, err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	n := len(data) / p.d
	cols, colNum := p.columns()
	shape, err := applyShape(path, opt.Shape, p.d)
	if err != nil {
		return nil, err
	}
	ds := &Dataset{X: mat.NewDense(n, p.d, data[:n*p.d:n*p.d]), Shape: shape, Columns: cols, ColumnNumbers: colNum, Source: path, Notes: p.noted}
	ds.Y, ds.Class = p.labelRule().Resolve(y)
	return ds, nil
}

// arffRows parses the data rows of an ARFF file, one at a time, after
// newARFF has read its header (see denseRows).
type arffRows struct {
	sc          *bufio.Scanner
	path        string
	maxLine     int
	opt         Options
	attrs       []arffAttr
	line        int
	done, start int64 // bytes read; bytes before the first data row
	classCol    int   // −1 if none
	idCol       int   // −1 if none
	d           int   // features a row
	noted       []string
	binaryClass []int // nominal index → 0/1, nil if not binary
	n           int   // data rows read
	vals        []string
}

// newARFF reads an ARFF header, up to and including its @data line.
func newARFF(r io.Reader, path string, opt Options) (*arffRows, error) {
	br := bufio.NewReader(r)
	if err := notText(br); err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	skipBOM(br)
	p := &arffRows{sc: bufio.NewScanner(br), path: path, maxLine: lineLimit(opt), opt: opt, classCol: -1, idCol: -1}
	p.sc.Buffer(make([]byte, 0, min(64<<10, p.maxLine)), p.maxLine)
	sawRelation := false
	for p.sc.Scan() {
		p.line++
		p.done += int64(len(p.sc.Bytes())) + 1
		if p.line == 1 && crInside(p.sc.Bytes()) {
			return nil, &Error{Path: path, Line: p.line, Err: errCROnly}
		}
		text := arffStrip(p.sc.Text())
		if text == "" {
			continue
		}
		if text[0] != '@' {
			return nil, p.lerr("expected @relation, @attribute or @data, got %q", clip(text))
		}
		kw, rest := splitKeyword(text)
		switch strings.ToLower(kw) {
		case "@relation":
			sawRelation = true
		case "@attribute":
			name, typ, err := arffNameType(rest)
			if err != nil {
				return nil, p.lerr("%v", err)
			}
			a := arffAttr{name: name}
			switch lt := strings.ToLower(typ); {
			case lt == "numeric" || lt == "real" || lt == "integer":
			case strings.HasPrefix(typ, "{"):
				if !strings.HasSuffix(typ, "}") {
					return nil, p.lerr("nominal attribute %q: missing '}'", name)
				}
				vals, err := splitARFF(typ[1 : len(typ)-1])
				if err != nil {
					return nil, p.lerr("nominal attribute %q: %v", name, err)
				}
				if len(vals) == 0 {
					return nil, p.lerr("nominal attribute %q has no values", name)
				}
				a.nominal = vals
			default:
				return nil, p.lerr("attribute %q has type %q: only numeric, real, integer and one nominal class attribute are supported", name, clip(typ))
			}
			if len(p.attrs) >= 1<<20 {
				return nil, p.lerr("too many attributes")
			}
			p.attrs = append(p.attrs, a)
		case "@data":
			if !sawRelation {
				return nil, p.lerr("@data before @relation")
			}
			if err := p.layout(); err != nil {
				return nil, err
			}
			p.start = p.done
			return p, nil
		default:
			return nil, p.lerr("unknown keyword %q", kw)
		}
	}
	if err := p.scanErr(); err != nil {
		return nil, err
	}
	return nil, &Error{Path: path, Err: errors.New("no @data section")}
}

// layout decides, at @data, the class attribute, the row identifier and
// the features.
func (p *arffRows) layout() error {
	attrs := p.attrs
	var err error
	p.classCol, err = arffClass(attrs, p.opt.Label)
	if err != nil {
		return p.lerr("%v", err)
	}
	for j, a := range attrs {
		if a.nominal != nil && j != p.classCol {
			return p.lerr("attribute %q is nominal: only the class attribute may be nominal", a.name)
		}
	}
	for j, a := range attrs {
		if j != p.classCol && a.nominal == nil && strings.EqualFold(a.name, "id") {
			p.idCol = j
			p.noted = append(p.noted, fmt.Sprintf("attribute %q is taken as the row identifier (as in the DAMI outlier benchmark files) and not read", a.name))
			break
		}
	}
	features := len(attrs)
	for _, j := range []int{p.classCol, p.idCol} {
		if j >= 0 {
			features--
		}
	}
	if features == 0 {
		return p.lerr("no numeric attributes")
	}
	if p.classCol >= 0 {
		p.binaryClass = arffBinary(attrs[p.classCol].nominal)
	}
	p.d = features
	return nil
}

func (p *arffRows) lerr(format string, a ...any) error {
	return &Error{Path: p.path, Line: p.line, Err: fmt.Errorf(format, a...)}
}

// scanErr is the error of the line scanner, nil at the end of the data.
func (p *arffRows) scanErr() error {
	if err := p.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return &Error{Path: p.path, Line: p.line + 1, Err: lineTooLong(p.maxLine, p.opt)}
		}
		return &Error{Path: p.path, Err: fmt.Errorf("cannot read: %v", err)}
	}
	return nil
}

func (p *arffRows) cols() int     { return p.d }
func (p *arffRows) labeled() bool { return p.classCol >= 0 }

// columns returns the names of the features and their one-based
// attribute numbers.
func (p *arffRows) columns() (cols []string, colNum []int) {
	for j, a := range p.attrs {
		if j != p.classCol && j != p.idCol {
			cols = append(cols, a.name)
			colNum = append(colNum, j+1)
		}
	}
	return cols, colNum
}

// labelRule says what the labels parse returns are: decided by the
// header.
func (p *arffRows) labelRule() Labels {
	switch {
	case p.classCol < 0:
		return Labels{Final: true}
	case p.attrs[p.classCol].nominal == nil || p.binaryClass != nil:
		return Labels{Kind: AnomalyLabels, Final: true}
	}
	return Labels{Kind: ClassLabels, Final: true}
}

// read reads the next data row and splits its values; io.EOF after the
// last.
func (p *arffRows) read() error {
	for p.sc.Scan() {
		p.line++
		p.done += int64(len(p.sc.Bytes())) + 1
		text := arffStrip(p.sc.Text())
		if text == "" {
			continue
		}
		var vals []string
		var err error
		if text[0] == '{' {
			vals, err = arffSparse(text, p.attrs)
		} else {
			vals, err = splitARFF(text)
			if err == nil && len(vals) == len(p.attrs)+1 && strings.HasPrefix(vals[len(p.attrs)], "{") {
				err = arffWeight(vals[len(p.attrs)])
			}
		}
		if err != nil {
			return p.lerr("%v", err)
		}
		if len(vals) != len(p.attrs) {
			hint := ""
			if len(vals) == 1 && len(strings.Fields(text)) == len(p.attrs) {
				// Weka's reader also takes white space between values.
				hint = "; its values are separated by spaces or tabs: separate them by commas"
			}
			return p.lerr("has %d values, the header declares %d attributes%s", len(vals), len(p.attrs), hint)
		}
		p.vals = vals
		p.n++
		return nil
	}
	if err := p.scanErr(); err != nil {
		return err
	}
	return io.EOF
}

// parse converts the row read into dst and returns its label: 0 or 1
// (−1 for '?') for a numeric class or a nominal one of a normal/anomaly
// pair, the index of the class's value otherwise.
func (p *arffRows) parse(dst []float64) (int, error) {
	k, lab := 0, 0
	for j, v := range p.vals {
		if j == p.classCol {
			c, err := arffClassValue(p.attrs[j], v)
			if err != nil {
				return 0, &Error{Path: p.path, Line: p.line, Err: fmt.Errorf("column %d (%q): %v", j+1, p.attrs[j].name, err)}
			}
			if p.binaryClass != nil && c >= 0 {
				c = p.binaryClass[c]
			}
			lab = c
			continue
		}
		if j == p.idCol {
			continue
		}
		if v == "?" {
			return 0, &Error{Path: p.path, Line: p.line, Err: fmt.Errorf("column %d (%q): missing value '?' is not supported", j+1, p.attrs[j].name)}
		}
		f, err := parseValue(v)
		if err != nil {
			return 0, &Error{Path: p.path, Line: p.line, Err: fmt.Errorf("column %d (%q): %v", j+1, p.attrs[j].name, err)}
		}
		dst[k] = f
		k++
	}
	return lab, nil
}

func (p *arffRows) at(err error) error { return &Error{Path: p.path, Line: p.line, Err: err} }

func (p *arffRows) offset() (done, start int64) { return p.done - p.start, p.start }

// finish checks, at the end of the data, that there were rows.
func (p *arffRows) finish() error {
	if p.n == 0 {
		return &Error{Path: p.path, Err: errors.New("empty data: no rows after @data")}
	}
	return nil
}

// arffStrip trims blanks and a comment: '%' to the end of the line,
// outside quotes, as Weka's tokenizer reads it.
func arffStrip(s string) string {
	var q byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '%':
			return strings.TrimSpace(s[:i])
		}
	}
	return strings.TrimSpace(s)
}

// arffSparse expands a sparse row "{i v, j w, ...}" (0-based attribute
// indices in increasing order) into one value a attribute: the values it
// omits are 0, for a nominal attribute its first value, as Weka reads them.
func arffSparse(s string, attrs []arffAttr) ([]string, error) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return nil, errors.New("sparse row without its closing '}'")
	}
	body, rest := strings.TrimSpace(s[1:end]), strings.TrimSpace(s[end+1:])
	if rest != "" {
		rest = strings.TrimSpace(strings.TrimPrefix(rest, ","))
		if err := arffWeight(rest); err != nil {
			return nil, err
		}
	}
	vals := make([]string, len(attrs))
	for j, a := range attrs {
		vals[j] = "0"
		if a.nominal != nil {
			vals[j] = a.nominal[0]
		}
	}
	if body == "" {
		return vals, nil
	}
	items, err := splitARFF(body)
	if err != nil {
		return nil, err
	}
	last := -1
	for _, it := range items {
		k := strings.IndexAny(it, " \t")
		if k < 0 {
			return nil, fmt.Errorf("sparse entry %q: want an attribute index and a value", clip(it))
		}
		j, err := strconv.Atoi(it[:k])
		if err != nil || j < 0 || j >= len(attrs) {
			return nil, fmt.Errorf("sparse entry %q: the index must be an integer from 0 to %d", clip(it), len(attrs)-1)
		}
		if j <= last {
			return nil, fmt.Errorf("sparse entry %q: indices must increase (after %d)", clip(it), last)
		}
		last = j
		v := strings.TrimSpace(it[k+1:])
		if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		vals[j] = v
	}
	return vals, nil
}

// arffWeight is the error for an instance weight ("{w}" after a row).
func arffWeight(w string) error {
	return fmt.Errorf("instance weight %s: weighted rows are not supported (every method weighs rows equally); remove the weights", clip(w))
}

// clip shortens a cell or token quoted in an error to its first 40 bytes
// and its length, so that a 5 MB cell does not make a 5 MB message.
func clip(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%s... (%d bytes)", s[:40], len(s))
	}
	return s
}

// splitKeyword splits "@attribute rest" at the first blank.
func splitKeyword(s string) (kw, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

// arffNameType splits the rest of an @attribute line into a (possibly
// quoted) name and its type.
func arffNameType(s string) (name, typ string, err error) {
	if s == "" {
		return "", "", errors.New("@attribute without a name")
	}
	if q := s[0]; q == '\'' || q == '"' {
		j := strings.IndexByte(s[1:], q)
		if j < 0 {
			return "", "", errors.New("unterminated quoted attribute name")
		}
		name, typ = s[1:1+j], strings.TrimSpace(s[2+j:])
	} else {
		name, typ = splitKeyword(s)
	}
	if typ == "" {
		return "", "", fmt.Errorf("attribute %q has no type", name)
	}
	return name, typ, nil
}

// splitARFF splits comma-separated values, honouring single and double
// quotes, and trims blanks and quotes.
func splitARFF(s string) ([]string, error) {
	var out []string
	for {
		s = strings.TrimSpace(s)
		var v string
		if s != "" && (s[0] == '\'' || s[0] == '"') {
			q := s[0]
			j := strings.IndexByte(s[1:], q)
			if j < 0 {
				return nil, errors.New("unterminated quote")
			}
			v, s = s[1:1+j], strings.TrimSpace(s[2+j:])
			if s != "" && s[0] != ',' {
				return nil, fmt.Errorf("unexpected text after quoted value %q", clip(v))
			}
		} else {
			j := strings.IndexByte(s, ',')
			if j < 0 {
				j = len(s)
			}
			v, s = strings.TrimSpace(s[:j]), s[j:]
		}
		out = append(out, v)
		if s == "" {
			return out, nil
		}
		s = s[1:] // the comma
	}
}

// arffClass finds the class attribute: the one named by label, else one
// named class, label, y or outlier, else a last nominal attribute; −1 if none.
func arffClass(attrs []arffAttr, label string) (int, error) {
	if label != "" {
		for j, a := range attrs {
			if strings.EqualFold(a.name, label) {
				return j, nil
			}
		}
		return -1, fmt.Errorf("no class attribute %q", label)
	}
	for _, want := range []string{"class", "label", "y", "outlier"} {
		for j, a := range attrs {
			if strings.EqualFold(a.name, want) {
				return j, nil
			}
		}
	}
	if k := len(attrs) - 1; k >= 0 && attrs[k].nominal != nil {
		return k, nil
	}
	return -1, nil
}

// BinaryClasses returns the positions of the normal and the anomaly value
// among the two values of a nominal class attribute when the pair is one
// of the obvious ones ({0, 1}, {normal, anomaly|anomalous|outlier|abnormal|
// attack}, {inlier, outlier}, {no, yes}, {false, true}, {n, y}; case and
// surrounding blanks ignored), the rule the ARFF reader applies; ok is
// false otherwise.
func BinaryClasses(vals []string) (normal, anomaly int, ok bool) {
	b := arffBinary(vals)
	if b == nil {
		return 0, 0, false
	}
	if b[0] == 0 {
		return 0, 1, true
	}
	return 1, 0, true
}

// arffBinary maps the values of an obviously binary nominal attribute to
// 0 (normal) and 1 (anomaly); nil if the values are not one of the known pairs.
func arffBinary(vals []string) []int {
	if len(vals) != 2 {
		return nil
	}
	a, b := labelWord(vals[0]), labelWord(vals[1])
	switch {
	case a == 0 && b == 1 && labelPair(vals[0], vals[1]):
		return []int{0, 1}
	case a == 1 && b == 0 && labelPair(vals[1], vals[0]):
		return []int{1, 0}
	}
	return nil
}

// labelPairs maps each normal class word to the anomaly words it pairs
// with.
var labelPairs = map[string][]string{
	"0": {"1"}, "normal": {"anomaly", "anomalous", "outlier", "abnormal", "attack"},
	"inlier": {"outlier"}, "no": {"yes"}, "false": {"true"}, "n": {"y"},
}

// labelWord says what a class word is, ignoring case and blanks: 0 a
// normal word of labelPairs, 1 an anomaly word, −1 neither.
func labelWord(w string) int {
	w = strings.ToLower(strings.TrimSpace(w))
	if _, ok := labelPairs[w]; ok {
		return 0
	}
	for _, an := range labelPairs {
		if slices.Contains(an, w) {
			return 1
		}
	}
	return -1
}

// labelPair reports whether the normal word norm pairs with the anomaly
// word anom.
func labelPair(norm, anom string) bool {
	return slices.Contains(labelPairs[strings.ToLower(strings.TrimSpace(norm))], strings.ToLower(strings.TrimSpace(anom)))
}

// arffClassValue returns the class index of v (−1 for '?').
func arffClassValue(a arffAttr, v string) (int, error) {
	if v == "?" {
		return -1, nil
	}
	if a.nominal == nil {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || (f != 0 && f != 1) {
			return 0, fmt.Errorf("label %q: a numeric class must be 0 (normal) or 1 (anomaly)", clip(v))
		}
		return int(f), nil
	}
	for i, s := range a.nominal {
		if s == v {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%q is not one of the declared values %q", clip(v), clip("{"+strings.Join(a.nominal, ",")+"}"))
}
