package dataset

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/james-bowman/sparse"
	"github.com/kernelad/anomaly/internal/csr"
	"gonum.org/v1/gonum/mat"
)

// WriteLIBSVM writes X (dense or *sparse.CSR) and labels y in LIBSVM/SVMlight
// text, one row a line, "label index:value ..." with one-based indices and
// zeros omitted, values in the shortest form that reads back exactly. Labels
// are written as given (1 anomaly, 0 normal), so Load reads the file back
// to the same Dataset; y may be nil (every label 0) and must otherwise have
// one entry per row. A CSR matrix is written from its non-zeros.
func WriteLIBSVM(w io.Writer, X mat.Matrix, y []int) error {
	r, c := X.Dims()
	if y != nil && len(y) != r {
		return fmt.Errorf("dataset: WriteLIBSVM: %d labels for %d rows", len(y), r)
	}
	bw := bufio.NewWriter(w)
	var buf []byte
	for i := 0; i < r; i++ {
		buf = buf[:0]
		lab := 0
		if y != nil {
			lab = y[i]
		}
		buf = strconv.AppendInt(buf, int64(lab), 10)
		put := func(j int, v float64) {
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		if sp, ok := X.(*sparse.CSR); ok {
			ind, val := csr.Row(sp, i)
			for k, j := range ind {
				put(j, val[k])
			}
		} else {
			for j := 0; j < c; j++ {
				if v := X.At(i, j); v != 0 {
					put(j, v)
				}
			}
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
