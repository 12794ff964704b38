package dataset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// sniffBytes is how much of a text file notText looks at.
const sniffBytes = 512

// errUTF16 is the error of a text file in UTF-16.
var errUTF16 = errors.New("the file is UTF-16 text (as Excel's \"Unicode text\"); save it as UTF-8 (in Excel: Save As, \"CSV UTF-8\")")

// binaryMagic maps the first bytes of common binary files a user may name
// as text (an Excel workbook saved as .csv, an array file renamed) to what
// the file is and what to do with it.
var binaryMagic = []struct{ magic, what string }{
	{"ANOMALY-MODEL", "a model written by 'anomaly fit', not data: give it with --model"},
	{"\x93NUMPY", "a NumPy .npy array: name the file .npy"},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an OLE2 document, as an Excel .xls workbook: save the sheet as CSV UTF-8 and read that"},
	{"\x89HDF\r\n\x1a\n", "an HDF5 file (as pandas' to_hdf and h5py write), which is not read: save the array with numpy.save (.npy) or as CSV"},
	{"PAR1", "a Parquet file, which is not read: write it with pandas' to_csv(index=False) or save the array with numpy.save (.npy)"},
	{"ARROW1", "an Arrow/Feather file, which is not read: write it with pandas' to_csv(index=False) or save the array with numpy.save (.npy)"},
	{"BZh", "bzip2-compressed: decompress it (bunzip2) or recompress it with gzip (as .csv.gz)"},
	{"\xfd7zXZ\x00", "xz-compressed: decompress it (unxz) or recompress it with gzip (as .csv.gz)"},
	{"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it (unzstd) or recompress it with gzip (as .csv.gz)"},
	{"7z\xbc\xaf\x27\x1c", "a 7-Zip archive: extract it first"},
	{"%PDF-", "a PDF document, not a data file"},
}

// notText is the error of a file handed to a text reader (CSV, TSV,
// LIBSVM, ARFF) whose first bytes show it is no UTF-8 text: gzip data
// under a text extension, UTF-16 or
// UTF-32 (with or without a byte order mark), a binary format recognised
// by its magic number (a zip archive: an .xlsx workbook or an .npz), or
// other binary data (NUL and control bytes); nil otherwise. It only peeks
// at the first bytes br holds (up to sniffBytes). A lone NUL byte in text is left to the reader, which names its
// row and column.
func notText(br *bufio.Reader) error {
	// Only bytes already buffered are looked at: a Peek past them would
	// take the read error stored behind them (data after a gzip stream,
	// a truncated one), which the reader must still see.
	if _, err := br.Peek(1); err != nil {
		if err == io.EOF {
			return nil
		}
		return fmt.Errorf("cannot read: %v", err)
	}
	b, _ := br.Peek(min(sniffBytes, br.Buffered()))
	switch {
	case isGzip(br):
		return errGzipped
	case bytes.HasPrefix(b, []byte("\xff\xfe\x00\x00")), bytes.HasPrefix(b, []byte("\x00\x00\xfe\xff")):
		return errors.New("the file is UTF-32 text; save it as UTF-8")
	case bytes.HasPrefix(b, []byte("\xff\xfe")), bytes.HasPrefix(b, []byte("\xfe\xff")):
		return errUTF16
	case bytes.HasPrefix(b, []byte("PK\x03\x04")):
		if bytes.Contains(b, []byte(".npy")) {
			return errors.New("the file is a zip archive of .npy arrays, an .npz: name it .npz")
		}
		return errors.New("the file is a zip archive, as an Excel .xlsx or OpenDocument .ods workbook is: save the sheet as CSV UTF-8 and read that")
	case len(b) >= 2 && b[0] == 0x80 && b[1] >= 2 && b[1] <= 5:
		return errors.New("the file is a Python pickle (as pickle, joblib and pandas' to_pickle write), which is not read: save the array with numpy.save (.npy) or as CSV")
	}
	for _, m := range binaryMagic {
		if bytes.HasPrefix(b, []byte(m.magic)) {
			return fmt.Errorf("the file is %s", m.what)
		}
	}
	// UTF-16 without a byte order mark: the ASCII characters of the text
	// put a NUL in every other byte.
	var nul, ctl, nulEven, nulOdd int
	first := -1
	for i, c := range b {
		switch {
		case c == 0:
			nul++
			if i%2 == 0 {
				nulEven++
			} else {
				nulOdd++
			}
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v', c == 0x7f:
			ctl++
		default:
			continue
		}
		if first < 0 {
			first = i
		}
	}
	if half := len(b) / 2; len(b) >= 4 && (nulOdd*10 >= half*9 && nulEven*10 < half || nulEven*10 >= half*9 && nulOdd*10 < half) {
		return errUTF16
	}
	if nul >= 2 || nul+ctl >= 4 && (nul+ctl)*50 >= len(b) {
		return fmt.Errorf("the file is binary, not text (a control byte 0x%02x at offset %d): is it the right file, and in the format its extension says?", b[first], first)
	}
	return nil
}
