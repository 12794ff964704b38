package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
)

// loadData reads a data file; every failure is bad data (exit 2) and names
// the file.
func loadData(path, label string, shape []int) (*dataset.Dataset, error) {
	ds, err := dataset.Load(path, dataset.Options{Label: label, Shape: shape})
	if err != nil {
		var de *dataset.Error
		if !errors.As(err, &de) {
			err = fmt.Errorf("%s: %w", path, err)
		}
		return nil, dataErr(err)
	}
	return ds, nil
}

// loadModel reads a model file written by fit. A missing, unreadable,
// corrupt, truncated or other-version file is bad data (exit 2).
func loadModel(path string) (name string, params map[string]string, d detector.Detector, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, nil, dataErr(fmt.Errorf("%s: cannot open model: %v", path, unwrapPath(err)))
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", nil, nil, dataErr(fmt.Errorf("%s: is a directory, not a model file", path))
	}
	name, params, d, err = detector.Load(f)
	if err != nil {
		return "", nil, nil, dataErr(fmt.Errorf("%s: %w", path, err))
	}
	return name, params, d, nil
}

// detectorErr classifies an error a detector returned on a data file: bad
// data naming the file (the detector's own errors — *detector.DimError,
// *detector.ValueError, *detector.EmptyError — carry row, column and feature
// counts).
func detectorErr(path string, err error) error {
	return dataErr(fmt.Errorf("%s: %w", path, err))
}
