package cli

import (
	"errors"
	"io"

	"github.com/kernelad/anomaly/internal/output"
)

// createOutput opens an output of a command through package output (atomic
// replacement of regular files, links followed, devices and pipes written
// in place, "-" to stdout). An output that is one of the command's inputs
// is a usage error (exit 1), reported before any work; an output that
// cannot be written is exit 3. An input "-" is stdin (nil where the
// command does not read standard input).
func createOutput(path string, stdout io.Writer, stdin io.Reader, inputs ...string) (*output.File, error) {
	f, err := output.Create(path, output.Options{Inputs: inputs, Stdout: stdout, Stdin: stdin})
	if err != nil {
		return nil, outputErr(err)
	}
	return f, nil
}

// checkOutput refuses, before any work, an output that is one of the
// inputs (exit 1); an input "-" is stdin.
func checkOutput(path string, stdin io.Reader, inputs ...string) error {
	if err := output.CheckInputs(path, output.Options{Inputs: inputs, Stdin: stdin}); err != nil {
		return usageErr(err)
	}
	return nil
}

// commitOutput makes an output final; a write, sync, close or rename
// error is exit 3.
func commitOutput(f *output.File) error {
	if err := f.Commit(); err != nil {
		return internalErr(err)
	}
	return nil
}

func outputErr(err error) error {
	var se *output.SameFileError
	if errors.As(err, &se) {
		return usageErr(err)
	}
	return internalErr(err)
}
