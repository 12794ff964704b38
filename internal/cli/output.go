package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// pendingFile is an output file being written: a temporary file in the
// destination's directory that Commit renames into place and Abort removes.
// Readers of the destination see the old file or the complete new one,
// never a part.
type pendingFile struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
}

// createPending opens a temporary file next to path. Failing to create it
// (a missing directory, no permission) is reported before any work is done.
func createPending(path string) (*pendingFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if base == "" {
		return nil, usagef("%s: output path names a directory, not a file", path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, usagef("%s: output path is a directory", path)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, internalErr(fmt.Errorf("%s: cannot create output: %v", path, unwrapPath(err)))
	}
	return &pendingFile{path: path, tmp: f, w: bufio.NewWriterSize(f, 1<<16)}, nil
}

// Writer returns the buffered writer into the temporary file.
func (p *pendingFile) Writer() io.Writer { return p.w }

// Commit flushes, syncs and closes the temporary file and renames it to the
// destination. On failure the temporary file is removed.
func (p *pendingFile) Commit() error {
	err := p.w.Flush()
	if err == nil {
		err = p.tmp.Sync()
	}
	if cerr := p.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// CreateTemp makes the file 0600; an output file gets the usual mode.
		err = os.Chmod(p.tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(p.tmp.Name(), p.path)
	}
	if err != nil {
		os.Remove(p.tmp.Name())
		return internalErr(fmt.Errorf("%s: cannot write output: %v", p.path, unwrapPath(err)))
	}
	return nil
}

// Abort closes and removes the temporary file. It is safe after Commit.
func (p *pendingFile) Abort() {
	p.tmp.Close()
	os.Remove(p.tmp.Name())
}

// unwrapPath drops the *os.PathError wrapping, whose path is the temporary
// name; messages name the destination instead.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	if le, ok := err.(*os.LinkError); ok {
		return le.Err
	}
	return err
}
