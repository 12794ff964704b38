package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	kit "github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/output"
)

// createOutput opens an output of a command through package output (atomic
// replacement of regular files, links followed, devices and pipes written
// in place, "-" to stdout). An output that is one of the command's inputs
// is a usage error (exit 1), reported before any work; an output that
// cannot be written is exit 3. An input "-" is stdin (nil where the
// command does not read standard input). ctx (nil for none) stops the wait
// for a named pipe's reader.
func createOutput(ctx context.Context, path string, stdout io.Writer, stdin io.Reader, inputs ...string) (*output.File, error) {
	f, err := output.Create(path, output.Options{Inputs: inputs, Stdout: stdout, Stdin: stdin, Context: ctx})
	switch {
	case err == nil:
		return f, nil
	case ctx != nil && ctx.Err() != nil:
		// A signal while waiting for a named pipe's reader.
		return nil, &exitError{ExitInterrupted, fmt.Errorf("interrupted while waiting for a reader of %s; nothing written", path)}
	}
	return nil, outputErr(err)
}

// checkOutput makes, before any work, the checks createOutput will make
// after it (output.Check: not an input, exit 1; writable, exit 3) without
// leaving a file; an input "-" is stdin.
func checkOutput(path string, stdin io.Reader, inputs ...string) error {
	if err := output.Check(path, output.Options{Inputs: inputs, Stdin: stdin}); err != nil {
		return outputErr(err)
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

// notOverModel refuses (usage, exit 1) an output of a command that does
// not write models (score's CSV, export's LIBSVM model) when the path is
// an existing model file: --out other.bin replaced a model with scores.
func notOverModel(path, what string) error {
	// Stat before opening: opening a named pipe for reading waits for a
	// writer, which is this command.
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil
	}
	if isModelFile(path) {
		return usagef("--out %s: the file is a model written by 'anomaly fit'; %s would replace it: write the output to another file", path, what)
	}
	return nil
}

// isModelFile reports whether the regular file at path begins as a model
// written by fit does (kit.IsModel); false when it cannot be read.
func isModelFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return kit.IsModel(f)
}
