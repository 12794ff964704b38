package dataset

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// refReadCSV is the CSV reader as it was before the byte-level scanner:
// encoding/csv with TrimLeadingSpace and any number of fields per record,
// every cell a string. It is kept as the reference that FuzzCSVReference
// and TestCSVReference compare readCSV with, result for result and message
// for message.
func refReadCSV(r io.Reader, path string, opt Options) (*Dataset, error) {
	cr := csv.NewReader(r)
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
				v, err := refParseLabel(cell)
				if err != nil {
					return nil, &Error{Path: path, Row: row, Col: j + 1, Err: fmt.Errorf("label %q: %v", cell, err)}
				}
				y = append(y, v)
				continue
			}
			v, err := refParseValue(cell)
			if err != nil {
				return nil, &Error{Path: path, Row: row, Col: j + 1, Err: fmt.Errorf("%q: %v", l.header[j], err)}
			}
			data = append(data, v)
		}
	}
	if n == 0 {
		return nil, &Error{Path: path, Err: errors.New("no data rows after the header")}
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

func refParseValue(s string) (float64, error) {
	if s == "" {
		return 0, errors.New("empty cell (missing values are not supported)")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%q is out of the float64 range", s)
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	if math.IsNaN(v) {
		return 0, fmt.Errorf("%q: NaN is not allowed (missing values are not supported)", s)
	}
	if math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: infinite values are not allowed", s)
	}
	return v, nil
}

func refParseLabel(s string) (int, error) {
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
