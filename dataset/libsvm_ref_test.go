package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kernelad/anomaly/internal/csr"
)

// refReadLIBSVM is the LIBSVM reader as it was before the byte-level
// scanner: bufio.Scanner lines, strings.Fields tokens. It is kept as the
// reference that TestLIBSVMReference and FuzzLIBSVMReference compare
// readLIBSVM with, result for result and message for message.
func refReadLIBSVM(r io.Reader, path string, opt Options) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	b := csr.NewBuilder(0)
	var labels []float64
	plus := false // some label is written "+1"
	var cols []int
	width := 0
	var vals []float64
	line := 0
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if k := bytes.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		fields := strings.Fields(string(text))
		if len(fields) == 0 {
			continue
		}
		lerr := func(format string, a ...any) error {
			return &Error{Path: path, Line: line, Err: fmt.Errorf(format, a...)}
		}
		if b.Rows() == 0 && !strings.Contains(string(text), ":") && (len(fields) >= 2 || strings.ContainsAny(fields[0], ",;")) {
			return nil, lerr("%q holds no index:value pair: a LIBSVM/SVMlight file (as .libsvm, .svm, .svmlight and .txt files are read) has a label then index:value pairs on each line; a table of columns (as numpy.savetxt writes) is read from a .csv file (commas) or a .tsv file (tabs) with a header row naming the columns", clip(strings.TrimSpace(string(text))))
		}
		lab, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || math.IsNaN(lab) || math.IsInf(lab, 0) || lab != math.Trunc(lab) || math.Abs(lab) > 1<<31 {
			if strings.Contains(fields[0], ":") {
				return nil, lerr("missing label: the line starts with %q", fields[0])
			}
			return nil, lerr("bad label %q: want an integer (1/0 or +1/-1)", fields[0])
		}
		if fields[0][0] == '+' {
			plus = true
		}
		cols, vals = cols[:0], vals[:0]
		prev := 0
		for k, tok := range fields[1:] {
			colon := strings.IndexByte(tok, ':')
			if colon < 0 {
				return nil, lerr("bad token %q: want index:value", tok)
			}
			is, vs := tok[:colon], tok[colon+1:]
			if is == "qid" {
				if k != 0 {
					return nil, lerr("qid token %q must come right after the label", tok)
				}
				continue
			}
			idx, ierr := strconv.Atoi(is)
			v, err := strconv.ParseFloat(vs, 64)
			if err := checkEntry([]byte(tok), idx, ierr == nil, prev, v, err); err != nil {
				return nil, lerr("%v", err)
			}
			prev = idx
			cols = append(cols, idx-1)
			vals = append(vals, v)
		}
		for _, c := range cols { // the width counts indices of explicit zeros
			width = max(width, c+1)
		}
		if err := b.AddRow(cols, vals); err != nil {
			return nil, lerr("%v", err)
		}
		labels = append(labels, lab)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &Error{Path: path, Line: line + 1, Err: fmt.Errorf("line longer than %d bytes", maxLineBytes)}
		}
		return nil, &Error{Path: path, Err: fmt.Errorf("cannot read: %v", err)}
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
	return ds, nil
}
