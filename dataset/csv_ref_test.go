package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// refReadCSV is the CSV reader as it was before the byte-level scanner:
// encoding/csv with TrimLeadingSpace and any number of fields per record,
// every cell a string parsed by parseValue and the layout's labelText
// (which readCSV's in-place parseCell and labelCell fall back to). It is kept as the
// reference that FuzzCSVReference and TestCSVReference compare readCSV
// with, result for result and message for message.
//
// encoding/csv reports a quoted field that the file ends inside on the
// file's last line; readCSV names the row where the quote opened, which
// refOpenQuote finds on the raw text, independently of both.
func refReadCSV(r io.Reader, path string, opt Options) (*Dataset, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, &Error{Path: path, Err: fmt.Errorf("cannot read: %v", err)}
	}
	ds, err := refReadCSVText(bytes.NewReader(raw), path, opt)
	// A carriage return inside the first line is the CR-only line endings
	// readCSV names once the header is read without a syntax error
	// (encoding/csv trims one that leads a field, as white space).
	var first []byte // the header's line: the first that is not empty
	row := 0
	for i, ln := range bytes.Split(bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")), []byte("\n")) {
		if len(ln) > 0 {
			first, row = ln, i+1
			break
		}
	}
	var de *Error
	syntax := errors.As(err, &de) && strings.HasPrefix(de.Err.Error(), "malformed CSV")
	if bytes.Contains(bytes.TrimSuffix(first, []byte("\r")), []byte("\r")) && !syntax && !isGzip(bufio.NewReader(bytes.NewReader(raw))) {
		return nil, &Error{Path: path, Row: row, Err: errCROnly}
	}
	if errors.As(err, &de) && errors.Is(de.Err, csv.ErrQuote) {
		if line, ok := refOpenQuote(raw); ok {
			return nil, &Error{Path: path, Row: line, Err: fmt.Errorf("malformed CSV: %v", errUnclosedQuote)}
		}
	}
	return ds, err
}

// refOpenQuote reports the line of the quoted field that text ends inside,
// if it ends inside one, by encoding/csv's rules with TrimLeadingSpace: a
// field is quoted when its first character after leading white space is
// '"'; in it, "" is a quote, and a quote ends it only before ',', a line
// end or the end of the text.
func refOpenQuote(text []byte) (int, bool) {
	text = bytes.TrimPrefix(text, []byte("\xef\xbb\xbf"))
	line, i := 1, 0
	for i < len(text) {
		// At the start of a field.
		for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
			i++
		}
		if i < len(text) && text[i] == '"' {
			opened := line
			i++
			for {
				j := bytes.IndexByte(text[i:], '"')
				if j < 0 {
					return opened, true
				}
				line += bytes.Count(text[i:i+j], []byte("\n"))
				i += j + 1
				switch {
				case i < len(text) && text[i] == '"':
					i++
					continue
				case i == len(text) || text[i] == ',' || text[i] == '\n' || bytes.HasPrefix(text[i:], []byte("\r\n")):
				default:
					return 0, false // a quote inside the quoted field
				}
				break
			}
		}
		// The rest of the field: up to ',' or the line's end.
		for i < len(text) && text[i] != ',' && text[i] != '\n' {
			i++
		}
		if i < len(text) && text[i] == '\n' {
			line++
		}
		i++
	}
	return 0, false
}

func refReadCSVText(r io.Reader, path string, opt Options) (*Dataset, error) {
	br := bufio.NewReader(r)
	if isGzip(br) {
		return nil, &Error{Path: path, Err: errGzipped}
	}
	skipBOM(br)
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	cr.TrimLeadingSpace = true
	cr.Comment = 0

	header, err := cr.Read()
	if err == io.EOF {
		return nil, &Error{Path: path, Err: errors.New("empty file: need a header row and at least one data row")}
	}
	if err != nil {
		return nil, refCSVErr(path, err)
	}
	hr, _ := cr.FieldPos(0)
	l, err := csvHeader(header, ',', path, hr, opt)
	if err != nil {
		return nil, err
	}
	ncol, d, labelCol := len(header), len(l.cols), l.label

	var data []float64
	var y []int
	n := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, refCSVErr(path, err)
		}
		row, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" && ncol > 1 {
			continue
		}
		n++
		if len(rec) != ncol {
			return nil, &Error{Path: path, Row: row, Err: fmt.Errorf("has %d fields, the header has %d", len(rec), ncol)}
		}
		for j, cell := range rec {
			cell = strings.TrimSpace(cell)
			if l.skip[j] {
				if err := l.skipped(path, row, j, []byte(cell)); err != nil {
					return nil, err
				}
				continue
			}
			if j == labelCol {
				v, err := l.labelText(cell, path, row)
				if err != nil {
					return nil, err
				}
				y = append(y, v)
				continue
			}
			v, err := parseValue(cell)
			if err != nil {
				return nil, &Error{Path: path, Row: row, Col: j + 1, Err: fmt.Errorf("%q: %v", l.header[j], err)}
			}
			data = append(data, v)
		}
	}
	if n == 0 {
		return nil, &Error{Path: path, Err: errors.New("no data rows after the header")}
	}
	if err := l.resolve(y, path); err != nil {
		return nil, err
	}
	shape, err := applyShape(path, opt.Shape, d)
	if err != nil {
		return nil, err
	}
	return &Dataset{X: mat.NewDense(n, d, data), Y: y, Shape: shape, Columns: l.cols, Source: path, Notes: l.notes}, nil
}

func refCSVErr(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &Error{Path: path, Row: pe.Line, Err: fmt.Errorf("malformed CSV: %w", pe.Err)}
	}
	return &Error{Path: path, Err: fmt.Errorf("cannot read: %v", err)}
}
