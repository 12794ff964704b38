package dataset

import (
	"fmt"
	"io"

	"github.com/kernelad/anomaly/internal/hugepage"
)

// denseRows is the parser of a dense text format (CSV, TSV, ARFF) once
// its header is read: read takes the next row and checks its shape, parse
// converts it. Load collects the rows into one array (collectDense), a
// File's Scan into chunks of rows; both go through the same parser, so
// the values, checks and messages are the same.
type denseRows interface {
	cols() int     // values a row
	labeled() bool // parse returns a label
	// read reads the next data row; io.EOF after the last.
	read() error
	// parse converts the row read into dst (cols() values) and returns
	// its label as read (0 when the file has none).
	parse(dst []float64) (label int, err error)
	// at returns err as the *Error of the row read (its row or line).
	at(err error) error
	// offset returns the bytes of data rows read (the row read
	// included) and the bytes before the first.
	offset() (done, start int64)
}

// growRows returns data with room for more rows of d values. The first
// buffer holds 256 rows, or as many as the total bytes can hold (a value
// takes at least two bytes with its separator): a small file of many
// columns is not given 256 rows. Later ones are sized from the bytes the
// rows read so far (rows of them, in done of the total bytes) took, with
// 2% to spare, and grow by at least a quarter, so a file of similar lines
// is read with one or two copies at most. The new buffer and the old one,
// which it is copied from (and, with lab, the labels beside them), are
// held together: when the two pass opt.MaxBytes, that is a *MemoryError,
// before the new one is allocated.
func growRows(data []float64, d, rows int, done, total int64, lab bool, opt Options) ([]float64, error) {
	want := int(min(256, total/(2*int64(d))+1))
	if opt.MaxBytes > 0 {
		// Nothing is known of the rows yet: the first buffer is kept
		// within the budget, and the next one is checked against the
		// projection from the rows read.
		want = int(max(1, min(int64(want), opt.MaxBytes/(8*int64(d)))))
	}
	if rows > 0 {
		want = rows + rows/4
		if done > 0 && total > done {
			est := float64(rows) * float64(total) / float64(done) * 1.02
			if est < float64(MaxElements/d) {
				want = max(want, int(est)+1)
			}
		}
	}
	what := func() string {
		if rows == 0 {
			return fmt.Sprintf("a row of %d values", d)
		}
		return fmt.Sprintf("a buffer of about %d rows of %d values beside the %d rows read so far (projected from those rows and the file's size)", want, d, rows)
	}
	words := int64(len(data)) + int64(want)*int64(d)
	if lab {
		words += int64(rows) + int64(want)
	}
	if err := opt.checkBytes(8*words, what); err != nil {
		return nil, err
	}
	nd := make([]float64, len(data), want*d)
	hugepage.Advise(nd[:cap(nd)])
	copy(nd, data)
	return nd, nil
}

// blockBytes bounds the block of rows collectDense adds at a time to data
// of unknown size.
const blockBytes = 8 << 20

// collectDense reads every row of p into one row-major array, and the
// labels when the file has them. size is the file's size, or a hint of it
// (the size a gzip trailer gives, which is only modulo 2³², and a
// decompression bomb's is a lie), or −1 when nothing is known (a stream).
//
// While the rows stay within size, one array holds them, grown by
// growRows from the projection of the rows read over the size: a file is
// read with one or two copies and about 2% to spare. Data of unknown size,
// and data that run past their size, go into blocks instead, each at most
// blockBytes and at most half of what the blocks before it hold, so that
// memory grows in steps of less than half, never doubling; at the end
// the blocks are copied into one array. Before each block the blocks, the
// new one and that final copy are checked against opt.MaxBytes: an
// endless stream is refused with a *MemoryError naming the rows and bytes
// read, before the allocation that would pass the budget. No block is
// ever copied into a larger one while the rows are read, so none is left
// behind for the collector while the next is made (a buffer grown by
// doubling cannot reuse the memory of the ones before it, which together
// are smaller than it): the memory held is what the check counts.
func collectDense(p denseRows, size int64, opt Options) ([]float64, []int, error) {
	d, lab := p.cols(), p.labeled()
	words := int64(d) // 8-byte words a row takes
	if lab {
		words++
	}
	most := max(1, int(blockBytes/(8*words))) // rows of a full block
	type block struct {
		data []float64
		y    []int
	}
	var blocks []block
	var cur block
	held := 0 // rows in blocks
	for {
		if err := p.read(); err == io.EOF {
			break
		} else if err != nil {
			return nil, nil, err
		}
		if len(cur.data)+d > cap(cur.data) {
			done, start := p.offset()
			if size >= 0 && len(blocks) == 0 && done < size-start {
				nd, err := growRows(cur.data, d, len(cur.data)/d, done, size-start, lab, opt)
				if err != nil {
					return nil, nil, p.at(err)
				}
				cur.data = nd
				if lab {
					ny := make([]int, len(cur.y), cap(nd)/d)
					copy(ny, cur.y)
					cur.y = ny
				}
			} else {
				if len(cur.data) > 0 {
					blocks = append(blocks, cur)
					held += len(cur.data) / d
				}
				rows := min(max(256, held/2), most)
				if need := 2 * 8 * words * int64(held+rows); opt.MaxBytes > 0 && need > opt.MaxBytes {
					return nil, nil, p.at(&MemoryError{
						What: fmt.Sprintf("the %d rows of %d values read from the first %s of the data, room for %d more and their copy into one array", held, d, FormatBytes(done+start), rows),
						Need: need, Max: opt.MaxBytes})
				}
				cur = block{data: make([]float64, 0, rows*d)}
				if lab {
					cur.y = make([]int, 0, rows)
				}
			}
		}
		k := len(cur.data)
		cur.data = cur.data[:k+d]
		v, err := p.parse(cur.data[k:])
		if err != nil {
			return nil, nil, err
		}
		if lab {
			cur.y = append(cur.y, v)
		}
	}
	if len(blocks) == 0 {
		return cur.data, cur.y, nil
	}
	blocks = append(blocks, cur)
	n := held + len(cur.data)/d
	data := hugepage.Floats(n * d)[:0]
	var y []int
	if lab {
		y = make([]int, 0, n)
	}
	for i := range blocks {
		data = append(data, blocks[i].data...)
		y = append(y, blocks[i].y...)
		blocks[i] = block{} // the collector may take it back now
	}
	return data, y, nil
}
