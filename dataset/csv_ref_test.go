package dataset

import (
	"bufio"
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
func refReadCSV(r io.Reader, path string, opt Options) (*Dataset, error) {
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
		return &Error{Path: path, Row: pe.Line, Err: fmt.Errorf("malformed CSV: %v", pe.Err)}
	}
	return &Error{Path: path, Err: fmt.Errorf("cannot read: %v", err)}
}
