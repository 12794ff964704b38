package dataset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadErrorCase is a file Load refuses, and how.
type loadErrorCase struct {
	name    string
	file    string // file name; content below
	content string
	opt     Options
	want    string // in the message
	row     int
	col     int
	line    int
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range loadErrorCases() {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, tc.file, []byte(tc.content))
			ds, err := Load(path, tc.opt)
			checkErr(t, ds, err, path, tc.want, tc.row, tc.col, tc.line)
		})
	}
}

// loadErrorCases are the files of TestLoadErrors (TestOpenErrors reads
// them through Open).
func loadErrorCases() []loadErrorCase {
	xy := func(x, y []byte) []byte {
		return npzBytes(map[string][]byte{"X.npy": x, "y.npy": y}, "X.npy", "y.npy")
	}
	x23 := npyBytes("<f8", false, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
	return []loadErrorCase{
		// CSV
		{name: "csv empty", file: "a.csv", content: "", want: "empty file"},
		{name: "csv header only", file: "a.csv", content: "a,b,label\n", want: "no data rows"},
		{name: "csv ragged short", file: "a.csv", content: "a,b,label\n1,2,0\n1,2\n", want: "has 2 fields, the header has 3", row: 3},
		{name: "csv ragged long", file: "a.csv", content: "a,b\n1,2\n3,4\n5,6,7\n", want: "has 3 fields", row: 4},
		{name: "csv unnamed middle column", file: "a.csv", content: "a,,b\n1,2,3\n", want: "the column has no name in the header", row: 1, col: 2},
		{name: "csv unnamed last column with values", file: "a.csv", content: "a,b,\n1,2,\n1,2,3\n", want: `"3": the last column has no name`, row: 3, col: 3},
		{name: "csv missing marker", file: "a.csv", content: "a,b\n1,2\n1,NA\n", want: `"b": "NA" marks a missing value`, row: 3, col: 2},
		{name: "csv thousands separator", file: "a.csv", content: "a,b\n\"1,000\",2\n", want: `"1,000" has a comma: write numbers without thousands separators (1000) and with a decimal point (1.000)`, row: 2, col: 1},
		{name: "csv decimal comma", file: "a.csv", content: "a,b\n\"1,5\",2\n", want: `"a": "1,5" has a decimal comma: write numbers with a decimal point (1.5)`, row: 2, col: 1},
		{name: "csv text cell", file: "a.csv", content: "a,b\n1,2\n1,abc\n", want: `"b": "abc" is not a number`, row: 3, col: 2},
		{name: "csv nan", file: "a.csv", content: "a,b\n1,nan\n", want: "NaN is not allowed", row: 2, col: 2},
		{name: "csv NaN upper", file: "a.csv", content: "a,b\nNaN,1\n", want: "NaN is not allowed", row: 2, col: 1},
		{name: "csv inf", file: "a.csv", content: "a,b\n1,inf\n", want: "infinite values are not allowed", row: 2, col: 2},
		{name: "csv -Inf", file: "a.csv", content: "a,b\n1,-Inf\n", want: "infinite", row: 2, col: 2},
		{name: "csv overflow", file: "a.csv", content: "a,b\n1,1e999\n", want: "out of the float64 range", row: 2, col: 2},
		{name: "csv empty cell", file: "a.csv", content: "a,b\n1,\n", want: "empty cell", row: 2, col: 2},
		{name: "csv label missing", file: "a.csv", content: "a,b\n1,2\n", opt: Options{Label: "target"}, want: `no label column "target"`, row: 1},
		{name: "csv bad label", file: "a.csv", content: "a,b,label\n1,2,0\n1,2,2\n", want: `label "2": labels must be 1 (anomaly), 0 (normal)`, row: 3, col: 3},
		{name: "csv label words not a pair", file: "a.csv", content: "y,a\ncat,1\ndog,2\n", want: `label column "y" holds the words ["cat" "dog"], which are not a normal/anomaly pair`, col: 1},
		{name: "csv third label word", file: "a.csv", content: "y,a\nno,1\nyes,2\nmaybe,3\n", want: `label "maybe": a third word after "no" and "yes"`, row: 4, col: 1},
		{name: "csv label words and numbers", file: "a.csv", content: "y,a\n1,1\nyes,2\n", want: `label column "y" holds both words ("yes" in row 3) and numbers (in row 2)`, row: 3, col: 1},
		{name: "csv label numbers after words", file: "a.csv", content: "y,a\nno,1\n-1,2\nyes,3\n0,4\n", want: `label column "y" holds both words ("no" in row 2) and numbers (in row 5)`, row: 5, col: 1},
		{name: "csv numeric label out of range", file: "a.csv", content: "y,a\n7,1\n", want: `label "7": labels must be 1 (anomaly)`, row: 2, col: 1},
		{name: "csv no header", file: "a.csv", content: "1,2\n3,4\n", want: "no header row", row: 1},
		{name: "csv holding LIBSVM", file: "a.csv", content: "1 1:0.5 3:2\n-1 2:1\n", want: "is a LIBSVM line", row: 1},
		{name: "csv holding ARFF", file: "a.csv", content: "@RELATION r\n@attribute a numeric\n@data\n1\n", want: "starts an ARFF header", row: 1},
		{name: "csv only label", file: "a.csv", content: "label\n1\n", want: "no feature columns", row: 1},
		{name: "csv two labels", file: "a.csv", content: "label,LABEL,a\n1,1,1\n", want: "two label columns", row: 1},
		{name: "csv bad quote", file: "a.csv", content: "a,b\n1,\"2\n", want: "malformed CSV: a quoted field opens on this row and is never closed", row: 2},
		{name: "csv quote never closed", file: "a.csv", content: "a,b\n1,2\n3,\"4\n5,6\n7,8\n", want: "a quoted field opens on this row and is never closed", row: 3},
		{name: "csv quote inside a quoted field", file: "a.csv", content: "a,b\n1,\"2\"x\n", want: "extraneous or missing \" in quoted-field", row: 2},
		{name: "csv shape", file: "a.csv", content: "a,b,c\n1,2,3\n", opt: Options{Shape: []int{2, 2}}, want: "shape [2 2] holds 4 values per row but the data has 3 features"},
		{name: "csv bad shape", file: "a.csv", content: "a,b\n1,2\n", opt: Options{Shape: []int{0, 2}}, want: "every dimension must be positive"},

		// NPY / NPZ
		{name: "npy empty file", file: "a.npy", content: "", want: "too short"},
		{name: "npy bad magic", file: "a.npy", content: "PK\x03\x04 not numpy at all", want: "bad magic"},
		{name: "npy dimension past 10^12", file: "a.npy", content: "\x93NUMPY\x01\x00\x46\x00{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 2), }", want: "dimension 4611686018427387904 is past 10^12"},
		{name: "npy version", file: "a.npy", content: "\x93NUMPY\x09\x00\x10\x00", want: "unsupported .npy format version 9.0"},
		{name: "npy short header", file: "a.npy", content: "\x93NUMPY\x01\x00\x40\x00{'descr'", want: "truncated .npy header"},
		{name: "npy bad dict", file: "a.npy", content: "\x93NUMPY\x01\x00\x10\x00{'descr' '<f8'}\n", want: "bad .npy header"},
		{name: "npy dtype", file: "a.npy", content: strings.Replace(string(npyBytes("<f8", false, []int{2}, []float64{1, 2})), "<f8", "<c8", 1), want: `unsupported dtype "<c8"`},
		{name: "npy huge shape", file: "a.npy", content: string(npyBytes("<f8", false, []int{99999999999, 99999}, nil)), want: "holds more than"},
		{name: "npy bigger than file", file: "a.npy", content: string(npyBytes("<f8", false, []int{1000, 1000}, nil)), want: "truncated: the header promises"},
		{name: "npy truncated data", file: "a.npy", content: string(npyBytes("<f8", false, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})[:120]), want: "truncated"},
		{name: "npy scalar", file: "a.npy", content: string(npyBytes("<f8", false, nil, []float64{1})), want: "X is a scalar"},
		{name: "npy zero rows", file: "a.npy", content: string(npyBytes("<f8", false, []int{0, 3}, nil)), want: "empty data"},
		{name: "npy nan", file: "a.npy", content: string(npyBytes("<f8", false, []int{2, 2}, []float64{1, 2, 3, nan()})), want: "NaN and infinite values are not allowed", row: 2, col: 2},
		{name: "npz not zip", file: "a.npz", content: "hello", want: "not an .npz (zip) archive"},
		{name: "npz no X", file: "a.npz", content: string(npzBytes(map[string][]byte{"A.npy": x23}, "A.npy")), want: "no array X in the archive (it holds: A)"},
		{name: "npz of positional arrays", file: "a.npz", content: string(npzBytes(map[string][]byte{"arr_0.npy": x23, "arr_1.npy": x23}, "arr_0.npy", "arr_1.npy")), want: "no array X in the archive (it holds: arr_0, arr_1); numpy.savez names the arrays given without a keyword arr_0"},
		{name: "npz member name with a line break", file: "a.npz", content: string(npzBytes(map[string][]byte{"A\nB.npy": x23}, "A\nB.npy")), want: `no array X in the archive (it holds: "A\nB")`},
		{name: "npz of a lower-case x", file: "a.npz", content: string(npzBytes(map[string][]byte{"x.npy": x23}, "x.npy")), want: "(it holds: x); array names are case-sensitive"},
		{name: "npz y length", file: "a.npz", content: string(xy(x23, npyBytes("<i8", false, []int{3}, []float64{0, 1, 0}))), want: "y has shape [3], want (2,)"},
		{name: "npz y fraction", file: "a.npz", content: string(xy(x23, npyBytes("<f8", false, []int{2}, []float64{0, 0.5}))), want: "y holds 0.5, want an integer", row: 2},
		{name: "npz bad member", file: "a.npz", content: string(xy([]byte("garbage"), x23)), want: "array X: not an .npy file"},

		// LIBSVM
		{name: "svm empty", file: "a.svm", content: "", want: "empty data: no sample lines"},
		{name: "svm comments only", file: "a.libsvm", content: "# nothing\n\n", want: "empty data"},
		{name: "svm zero index", file: "a.svm", content: "1 1:2\n0 0:1\n", want: `index 0 in "0:1": LIBSVM indices start at 1 (scikit-learn's dump_svmlight_file writes them from 0 unless given zero_based=False`, line: 2},
		{name: "svm negative index", file: "a.svm", content: "1 -1:2\n", want: `bad index in "-1:2": want an integer from 1`, line: 1},
		{name: "svm text index", file: "a.svm", content: "1 a:2\n", want: `bad index in "a:2"`, line: 1},
		{name: "svm non-increasing", file: "a.svm", content: "1 2:1 2:3\n", want: `index 2 in "2:3" does not increase (previous index 2)`, line: 1},
		{name: "svm decreasing", file: "a.svmlight", content: "1 1:1\n\n1 3:1 2:3\n", want: `index 2 in "2:3" does not increase`, line: 3},
		{name: "svm bad value", file: "a.svm", content: "1 1:abc\n", want: `bad value in "1:abc": not a number`, line: 1},
		{name: "svm nan", file: "a.txt", content: "1 1:nan\n", want: `bad value in "1:nan": NaN`, line: 1},
		{name: "svm inf", file: "a.svm", content: "1 1:inf\n", want: "infinite", line: 1},
		{name: "svm bad label", file: "a.svm", content: "x 1:2\n", want: `bad label "x"`, line: 1},
		{name: "svm CR-only", file: "a.svm", content: "1 1:2\r-1 1:3\r", want: "carriage return alone", line: 1},
		{name: "arff CR-only", file: "a.arff", content: "@relation r\r@attribute a numeric\r@data\r1\r", want: "carriage return alone", line: 1},
		{name: "svm fractional label", file: "a.svm", content: "0.5 1:2\n", want: `bad label "0.5"`, line: 1},
		{name: "svm no label", file: "a.svm", content: "1:2 3:4\n", want: "missing label", line: 1},
		{name: "svm no colon", file: "a.svm", content: "1 1:2\n1 3\n", want: `bad token "3"`, line: 2},
		// A table in a .txt file (numpy.savetxt's, a header): it was "bad
		// token" or "bad label", as if the line were a broken LIBSVM line.
		// Comment lines in CSV (fifth sweep): the messages said only
		// "has 2 fields, the header has 1" or "is not a number".
		{name: "csv comment before the header", file: "a.csv", content: "# my data\na,b\n1,2\n", want: "row 2: has 2 fields, the header has 1; the header, row 1, starts with #: if it is a comment line, remove it", row: 2},
		{name: "csv comment row", file: "a.csv", content: "a,b\n1,2\n# note\n2,3\n", want: "has 1 fields, the header has 2; the row starts with #, as a comment line does", row: 3},
		{name: "csv comment row of as many fields", file: "a.csv", content: "a,b\n1,2\n# x,y\n", want: `"# x" is not a number; the row starts with #, as a comment line does`, row: 3, col: 1},
		// Format hints on a first cell that is not a number (fifth sweep:
		// each said only `"1 2" is not a number`).
		{name: "space-separated .csv", file: "a.csv", content: "a b\n1 2\n", want: `"1 2" is not a number; the file reads as one column whose cells hold numbers separated by spaces: fields here are separated by commas (a .csv file)`, row: 2, col: 1},
		{name: "ARFF with a leading comment as .csv", file: "a.csv", content: "% made by Weka\n@relation r\n@attribute a numeric\n@data\n1\n", want: "the row is an ARFF header line: read the data as ARFF", row: 2, col: 1},
		{name: "quoted .tsv (R's write.table)", file: "a.tsv", content: "\"a\"\t\"b\"\n\"1\"\t2\n", want: "a .tsv file has no quoting, so its quotes are read as characters", row: 2, col: 1},
		{name: "one column, a word with a space", file: "a.csv", content: "value\n1\nx y\n", want: `"x y" is not a number`, row: 3, col: 1},
		// Excel's separator line: it read as a header "sep=" and a
		// not-a-number "a" in row 2.
		{name: "csv with sep=; first", file: "a.csv", content: "sep=;\na;b\n1;2\n", want: `the first line, "sep=;", is Excel's separator line: the fields are separated by semicolons, and here by commas (a .csv file)`, row: 1},
		{name: "csv with sep=, first: rows keep their line numbers", file: "a.csv", content: "sep=,\r\na,b\r\n1,x\r\n", want: `"b": "x" is not a number`, row: 3, col: 2},
		{name: "txt table of numbers", file: "a.txt", content: "1.0 2.0\n3.0 4.0\n", want: `"1.0 2.0" holds no index:value pair: a LIBSVM/SVMlight file (as .libsvm, .svm, .svmlight and .txt files are read)`, line: 1},
		{name: "txt tab-separated header", file: "a.txt", content: "# made by numpy\na\tb\n1\t2\n", want: `"a\tb" holds no index:value pair`, line: 2},
		{name: "txt comma-separated", file: "a.txt", content: "1,2,3\n", want: "is read from a .csv file (commas)", line: 1},
		{name: "svm late qid", file: "a.svm", content: "1 1:2 qid:3\n", want: "qid token", line: 1},
		{name: "svm no features", file: "a.svm", content: "1\n0\n", want: "no feature index:value pairs"},

		// ARFF
		{name: "arff empty", file: "a.arff", content: "", want: "no @data section"},
		{name: "arff no data rows", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n", want: "empty data"},
		{name: "arff string attr", file: "a.arff", content: "@relation r\n@attribute s string\n@data\n", want: `attribute "s" has type "string"`, line: 2},
		{name: "arff nominal feature", file: "a.arff", content: "@relation r\n@attribute c {x,y}\n@attribute a numeric\n@attribute class {0,1}\n@data\n", want: `attribute "c" is nominal`, line: 5},
		{name: "arff ragged", file: "a.arff", content: "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1,2\n1\n", want: "has 1 values, the header declares 2", line: 6},
		{name: "arff values separated by tabs", file: "a.arff", content: "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n1\t2\n", want: "has 1 values, the header declares 2 attributes; its values are separated by spaces or tabs: separate them by commas", line: 5},
		{name: "arff text", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\nfoo\n", want: `column 1 ("a"): "foo" is not a number`, line: 4},
		{name: "arff missing", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n?\n", want: "missing value '?'", line: 4},
		{name: "arff nan", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\nNaN\n", want: "NaN is not allowed", line: 4},
		{name: "arff bad class", file: "a.arff", content: "@relation r\n@attribute a numeric\n@attribute class {no,yes}\n@data\n1,maybe\n", want: `"maybe" is not one of the declared values`, line: 5},
		{name: "arff sparse index out of range", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n{1 1}\n", want: "the index must be an integer from 0 to 0", line: 4},
		{name: "arff sparse indices not increasing", file: "a.arff", content: "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n{1 1, 0 2}\n", want: "indices must increase", line: 5},
		{name: "arff sparse entry without a value", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n{0}\n", want: "want an attribute index and a value", line: 4},
		{name: "arff sparse unclosed", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n{0 1\n", want: "without its closing", line: 4},
		{name: "arff weighted dense row", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n1,{2}\n", want: "instance weight {2}", line: 4},
		{name: "arff weighted sparse row", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n{0 1}, {2}\n", want: "instance weight {2}", line: 4},
		{name: "arff label option", file: "a.arff", content: "@relation r\n@attribute a numeric\n@data\n1\n", opt: Options{Label: "target"}, want: `no class attribute "target"`, line: 3},
		{name: "arff junk", file: "a.arff", content: "hello\n", want: "expected @relation", line: 1},

		// Files
		{name: "unknown extension", file: "a.xyz", content: "x", want: `unknown extension ".xyz": supported are .arff, .csv, .libsvm, .npy, .npz, .svm, .svmlight, .tsv, .txt`},
		{name: "spreadsheet", file: "a.xlsx", content: "x", want: "a spreadsheet is not read: save the sheet as CSV (UTF-8)"},
		{name: "semicolon-separated .csv", file: "a.csv", content: "a;b\n1;2\n", want: `the header is one column, "a;b", that holds semicolons: fields here are separated by commas (a .csv file)`, row: 1},
		{name: "tab-separated .csv", file: "a.csv", content: "a\tb\n1\t2\n", want: "that holds tabs (a .tsv file)", row: 1},
		{name: "comma-separated .tsv", file: "a.tsv", content: "a,b\n1,2\n", want: "that holds commas (a .csv file): fields here are separated by tabs (a .tsv file)", row: 1},
		{name: "UTF-16 .csv", file: "a.csv", content: "\xff\xfea\x00,\x00b\x00\n\x001\x00,\x002\x00\n\x00", want: "the file is UTF-16 text"},
		// Before the first line was read, UTF-16 with CRLF line ends
		// (Excel's "Unicode text") was called classic Mac OS line
		// endings, and a binary file UTF-16 text.
		{name: "UTF-16LE .csv, CRLF", file: "a.csv", content: "\xff\xfea\x00,\x00b\x00\r\x00\n\x001\x00,\x002\x00\r\x00\n\x00", want: "the file is UTF-16 text"},
		{name: "UTF-16BE .csv, CRLF", file: "a.csv", content: "\xfe\xff\x00a\x00,\x00b\x00\r\x00\n\x001\x00,\x002\x00\r\x00\n", want: "the file is UTF-16 text"},
		{name: "UTF-16LE .csv without BOM", file: "a.csv", content: "a\x00,\x00b\x00\r\x00\n\x001\x00,\x002\x00\r\x00\n\x00", want: "the file is UTF-16 text"},
		{name: "UTF-16 .libsvm", file: "a.libsvm", content: "\xff\xfe1\x00 \x001\x00:\x002\x00\r\x00\n\x00", want: "the file is UTF-16 text"},
		{name: "UTF-16 .arff", file: "a.arff", content: "\xff\xfe@\x00r\x00\r\x00\n\x00", want: "the file is UTF-16 text"},
		{name: "xlsx named .csv", file: "a.csv", content: "PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00[Content_Types].xml", want: "a zip archive, as an Excel .xlsx"},
		{name: "npz named .csv", file: "a.csv", content: "PK\x03\x04\x14\x00\x00\x00\x08\x00\x00\x00!\x00X.npy\x01\x00", want: "an .npz: name it .npz"},
		{name: "a model named .csv", file: "a.csv", content: "ANOMALY-MODEL\r\n\xea\x00\x00\x00{", want: "the file is a model written by 'anomaly fit', not data: give it with --model"},
		{name: "npy named .txt", file: "a.txt", content: "\x93NUMPY\x01\x00v\x00{'descr': '<f8'", want: "a NumPy .npy array: name the file .npy"},
		{name: "pickle named .csv", file: "a.csv", content: "\x80\x04\x95\x10\x00\x00\x00", want: "a Python pickle"},
		{name: "xls named .csv", file: "a.csv", content: "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1\x00\x00", want: "Excel .xls workbook"},
		{name: "HDF5 named .csv", file: "a.csv", content: "\x89HDF\r\n\x1a\n\x00\x00", want: "an HDF5 file"},
		{name: "gzip named .libsvm", file: "a.libsvm", content: "\x1f\x8b\x08\x00\x00\x00", want: "the file is gzip-compressed"},
		{name: "zeros named .csv", file: "a.csv", content: "\x00\x00\x00\x00\x00\x00", want: "the file is binary, not text (a control byte 0x00 at offset 0)"},
		{name: "binary named .arff", file: "a.arff", content: "@r\x01\x02\x03\x04\x05\x06", want: "the file is binary, not text (a control byte 0x01 at offset 2)"},
		// One stray NUL is left to the reader, which names its cell.
		{name: "one NUL in a cell", file: "a.csv", content: "a,b\n1,2\n2,\x003\n", want: `"\x003" is not a number`, row: 3, col: 2},
		{name: "no extension", file: "data", content: "x", want: "no file extension"},
	}
}

func nan() float64 { var z float64; return z / z }

func checkErr(t *testing.T, ds *Dataset, err error, path, want string, row, col, line int) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; got %d rows", ds.Rows())
	}
	var de *Error
	if !errors.As(err, &de) {
		t.Fatalf("error %T %q is not a *dataset.Error", err, err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, path+": ") || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("message %q: want one line starting with the path and containing %q", msg, want)
	}
	if de.Row != row || de.Col != col || de.Line != line {
		t.Errorf("row %d col %d line %d, want %d %d %d (%s)", de.Row, de.Col, de.Line, row, col, line, msg)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.csv")
	_, err := Load(missing, Options{})
	checkErr(t, nil, err, missing, "no such file", 0, 0, 0)

	sub := filepath.Join(dir, "sub.csv")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = Load(sub, Options{})
	checkErr(t, nil, err, sub, "is a directory", 0, 0, 0)

	if os.Geteuid() == 0 {
		t.Log("running as root: the unreadable-file case cannot be made, skipped")
		return
	}
	locked := writeFile(t, "locked.csv", []byte("a\n1\n"))
	os.Chmod(locked, 0)
	_, err = Load(locked, Options{})
	checkErr(t, nil, err, locked, "permission denied", 0, 0, 0)
}

// TestLoadLatin1Text: a header in Latin-1 (é as the byte 0xe9) is not
// binary: the text check lets it through and the file is read.
func TestLoadLatin1Text(t *testing.T) {
	path := writeFile(t, "a.csv", []byte("caf\xe9,b\n1,2\n2,3\n"))
	ds, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := ds.X.Dims(); r != 2 || c != 2 {
		t.Fatalf("read %d × %d, want 2 × 2", r, c)
	}
}

// TestLoadSavetxtHeader: numpy.savetxt(header="a,b") writes "# a,b": the
// file is read, its first column named "# a", with a note that says why.
func TestLoadSavetxtHeader(t *testing.T) {
	path := writeFile(t, "a.csv", []byte("# a,b\n0.0,1.0\n2.0,3.0\n"))
	ds, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Notes) != 1 || !strings.Contains(ds.Notes[0], `column 1 is named "# a": numpy.savetxt writes its header after "# "`) {
		t.Errorf("notes %q, want one on numpy.savetxt's header", ds.Notes)
	}
	if ds.Columns[0] != "# a" || ds.Rows() != 2 {
		t.Errorf("columns %q, %d rows; want \"# a\" first and 2 rows", ds.Columns, ds.Rows())
	}
}

// TestLoadExcelSepLine: Excel's "sep=," line naming the file's delimiter is
// skipped, as Excel reads it, in .csv and .tsv.
func TestLoadExcelSepLine(t *testing.T) {
	for name, content := range map[string]string{
		"a.csv": "sep=,\na,b\n1,2\n3,4\n",
		"b.csv": "SEP=,\r\na,b\r\n1,2\r\n3,4\r\n",
		"c.tsv": "sep=\t\na\tb\n1\t2\n3\t4\n",
	} {
		ds, err := Load(writeFile(t, name, []byte(content)), Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if ds.Rows() != 2 || len(ds.Columns) != 2 || ds.Columns[0] != "a" || ds.X.At(1, 1) != 4 {
			t.Errorf("%s: columns %q, %d rows, want a, b and 2 rows", name, ds.Columns, ds.Rows())
		}
	}
}

// TestLoadDuplicateColumnNames: two feature columns of one name are read
// with a note naming both (they were read silently).
func TestLoadDuplicateColumnNames(t *testing.T) {
	ds, err := Load(writeFile(t, "a.csv", []byte("a,b,a\n1,2,3\n4,5,6\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Notes) != 1 || ds.Notes[0] != `columns 1 and 3 are both named "a" (a column given twice?); both are read` {
		t.Errorf("notes %q", ds.Notes)
	}
	if _, c := ds.X.Dims(); c != 3 {
		t.Errorf("%d columns read, want 3", c)
	}
}
