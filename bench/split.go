package bench

import (
	"bufio"
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
)

// splitFile is one prepared split: what Split returns for a (data set,
// class, seed), written once by Run (Config.SplitDir) so that the
// process-per-task runs of every method read the few thousand rows they
// use instead of each reloading and re-splitting the whole data file.
type splitFile struct {
	Source      string
	Shape       []int
	Train, Test splitPart
}

type splitPart struct {
	Rows, Cols int
	X          []float64 // row-major
	Y          []int
}

func toPart(ds *dataset.Dataset) (splitPart, bool) {
	d, ok := ds.X.(*mat.Dense)
	if !ok {
		return splitPart{}, false
	}
	r, c := d.Dims()
	x := make([]float64, 0, r*c)
	for i := 0; i < r; i++ {
		x = append(x, d.RawRowView(i)...)
	}
	return splitPart{Rows: r, Cols: c, X: x, Y: ds.Y}, true
}

func (p splitPart) dataset(f *splitFile) *dataset.Dataset {
	return &dataset.Dataset{X: mat.NewDense(p.Rows, p.Cols, p.X), Y: p.Y, Shape: f.Shape, Source: f.Source}
}

// writeSplit writes the split of ds for (class, seed) into dir and returns
// its path; "" (and no error) when the split is not dense, which the tasks
// then compute themselves.
func writeSplit(dir string, ds *dataset.Dataset, class int, seed uint64, raw bool) (string, error) {
	train, test, err := Split(ds, class, seed, raw)
	if err != nil {
		return "", nil // the task reports the same error itself
	}
	tr, ok1 := toPart(train)
	te, ok2 := toPart(test)
	if !ok1 || !ok2 {
		return "", nil
	}
	f, err := os.CreateTemp(dir, "split-*.gob")
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	err = gob.NewEncoder(w).Encode(splitFile{Source: ds.Source, Shape: ds.Shape, Train: tr, Test: te})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// RunSplitTask runs a task whose Split names a prepared split file
// (written by Run with Config.SplitDir): read it, then build, fit, score
// and evaluate as RunTask does.
func RunSplitTask(ctx context.Context, t Task) Outcome {
	f, err := os.Open(t.Split)
	if err != nil {
		return Outcome{Err: err.Error()}
	}
	defer f.Close()
	var sf splitFile
	if err := gob.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&sf); err != nil {
		return Outcome{Err: fmt.Sprintf("bench: prepared split %s: %v", filepath.Base(t.Split), err)}
	}
	return runSplit(ctx, sf.Train.dataset(&sf), sf.Test.dataset(&sf), sf.Shape, t)
}
