package output

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// SameFileError reports an output that is one of the inputs.
type SameFileError struct {
	Output, Input string
}

func (e *SameFileError) Error() string {
	if e.Input == stdinName {
		return fmt.Sprintf("%s is the file standard input is read from; write the output to another file", e.Output)
	}
	if e.Output == e.Input {
		return fmt.Sprintf("%s is both an input and the output; write the output to another file", e.Output)
	}
	return fmt.Sprintf("%s is the same file as the input %s; write the output to another file", e.Output, e.Input)
}

// stdinName is SameFileError's Input for standard input.
const stdinName = "standard input"

// PathError reports an output path that cannot be written (a directory, a
// missing directory, no permission, a full disk) with the path the user
// gave.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("%s: cannot write output: %v", e.Path, e.Err) }
func (e *PathError) Unwrap() error { return e.Err }

// File is an output being written. Write to it, then Commit; Abort (safe
// after Commit, and idempotent) discards an unfinished file.
type File struct {
	path    string // as the user gave it, for messages
	w       *bufio.Writer
	pending *pending    // regular files
	direct  *os.File    // non-regular files, written in place
	stdout  bool        // "-": nothing to close
	fd      bool        // an open descriptor (/dev/stdout): not closed
	unwatch func() bool // stops the context's watch of a pipe's writes
	err     error
	done    bool
}

// CheckInputs returns a *SameFileError when path (after following links)
// is the same file as one of opt.Inputs; paths that do not exist are not
// the same as anything. An input "-" is standard input, opt.Stdin: when
// that is a file (a shell's redirection, < data.csv), it is compared too,
// so that --data - --out data.csv < data.csv does not replace the data.
// The output "-" is never an input's file.
func CheckInputs(path string, opt Options) error {
	if path == "-" {
		return nil
	}
	out, err := os.Stat(path)
	if err != nil {
		return nil
	}
	for _, in := range opt.Inputs {
		var st os.FileInfo
		switch in {
		case "":
			continue
		case "-":
			f, ok := opt.Stdin.(*os.File)
			if !ok {
				continue
			}
			st, err = f.Stat()
			in = stdinName
		default:
			st, err = os.Stat(in)
		}
		if err == nil && os.SameFile(out, st) {
			return &SameFileError{Output: path, Input: in}
		}
	}
	return nil
}

// Options are what Create needs to know besides the path.
type Options struct {
	// Inputs are the files the output must not be (the data, the model);
	// "-" is standard input, Stdin.
	Inputs []string
	// Stdin is the standard input an input "-" reads; checked when it is
	// an *os.File.
	Stdin io.Reader
	// Stdout is where "-" writes; nil means os.Stdout.
	Stdout io.Writer
	// Context, when set, stops Create waiting for a named pipe's reader.
	Context context.Context
}

// Create opens path for writing by the rules of the package. It refuses
// an output that is one of the inputs, a directory, and a path whose
// directory does not exist or cannot be written, before anything is
// written.
func Create(path string, opt Options) (*File, error) {
	if path == "-" {
		w := opt.Stdout
		if w == nil {
			w = os.Stdout
		}
		return &File{path: "standard output", w: bufio.NewWriterSize(w, 1<<16), stdout: true}, nil
	}
	target, kind, st, err := examine(path, opt)
	if err != nil {
		return nil, err
	}
	switch kind {
	case descriptor:
		// Write to the descriptor as it is open (in append mode after a
		// shell's >>); it stays open after Commit.
		fd, _ := fdOf(target)
		f := os.NewFile(uintptr(fd), path)
		if f == nil {
			return nil, &PathError{Path: path, Err: errors.New("not an open file descriptor")}
		}
		if _, err := f.Stat(); err != nil {
			return nil, &PathError{Path: path, Err: Unwrap(err)}
		}
		return &File{path: path, w: bufio.NewWriterSize(f, 1<<16), fd: true}, nil
	case inPlace:
		// Devices, pipes, sockets, terminals: write in place. A FIFO
		// waits here until a reader opens it, as any writer would.
		f, err := openInPlace(opt.Context, target, st)
		if err != nil {
			return nil, &PathError{Path: path, Err: Unwrap(err)}
		}
		out := &File{path: path, w: bufio.NewWriterSize(f, 1<<16), direct: f}
		if opt.Context != nil && st.Mode()&os.ModeNamedPipe != 0 {
			// A write blocked on a pipe whose reader stalls ends when
			// the context does (SIGINT waited for the reader to drain
			// the pipe); the pipe was opened non-blocking, so its
			// writes go through the poller, which honours deadlines.
			out.unwatch = context.AfterFunc(opt.Context, func() { f.SetWriteDeadline(time.Now()) })
		}
		return out, nil
	}
	pf, err := createPending(target)
	if err != nil {
		return nil, tempFileError(path, target, err)
	}
	return &File{path: path, w: bufio.NewWriterSize(pf, 1<<16), pending: pf}, nil
}

// How an output is written.
const (
	replaced   = iota // a regular file, new or replaced by renaming
	inPlace           // a device, pipe, socket or terminal
	descriptor        // an open descriptor (fdOf)
)

// examine makes the checks Create and Check share and says how path is
// written: not an input, not a directory, an existing regular file only if
// the user may write it (as a shell's > would refuse it; opening without
// O_TRUNC changes nothing). target is path with its links followed.
func examine(path string, opt Options) (target string, kind int, st os.FileInfo, err error) {
	if err := CheckInputs(path, opt); err != nil {
		return "", 0, nil, err
	}
	if target, err = resolve(path); err != nil {
		return "", 0, nil, &PathError{Path: path, Err: err}
	}
	if _, err := fdOf(target); err == nil {
		return target, descriptor, nil, nil
	}
	st, err = os.Stat(target)
	switch {
	case err == nil && st.IsDir():
		return "", 0, nil, &PathError{Path: path, Err: errors.New("is a directory")}
	case err == nil && !st.Mode().IsRegular():
		return target, inPlace, st, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return "", 0, nil, &PathError{Path: path, Err: Unwrap(err)}
	case err == nil:
		f, err := os.OpenFile(target, os.O_WRONLY, 0)
		if err != nil {
			return "", 0, nil, &PathError{Path: path, Err: Unwrap(err)}
		}
		f.Close()
	}
	return target, replaced, st, nil
}

// openInPlace opens a non-regular file for writing. A named pipe is
// opened without blocking, again every 20 ms while it has no reader
// (ENXIO), until one comes or ctx ends: a blocking open(2) could not be
// interrupted, and SIGINT or SIGTERM left the command waiting.
func openInPlace(ctx context.Context, path string, st os.FileInfo) (*os.File, error) {
	if st.Mode()&os.ModeNamedPipe == 0 {
		return os.OpenFile(path, os.O_WRONLY, 0)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if !errors.Is(err, syscall.ENXIO) {
			return f, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Check makes the checks of Create without creating anything that stays:
// path is not an input, not a directory, not a file the user may not
// write, and a new file can be made in its directory (one is made there
// and removed at once). A command checks its output with it before long
// work and creates it with Create after, so that a process killed
// (SIGKILL, the kernel's out-of-memory killer) while it works leaves no
// empty temporary file behind. Standard output, devices and named pipes
// are not opened (a pipe's reader would be taken).
func Check(path string, opt Options) error {
	if path == "-" {
		return nil
	}
	target, kind, _, err := examine(path, opt)
	if err != nil || kind != replaced {
		return err
	}
	pf, err := createPending(target)
	if err != nil {
		return tempFileError(path, target, err)
	}
	pf.cleanup()
	return nil
}

// tempFileError is the error of a temporary file that cannot be made
// beside target: a directory the user may not write is named as the
// cause (a writable file in a read-only directory only said "permission
// denied").
func tempFileError(path, target string, err error) error {
	err = Unwrap(err)
	if errors.Is(err, os.ErrPermission) {
		return &PathError{Path: path, Err: fmt.Errorf("%w: the output is written to a temporary file in %s and renamed into place, and that directory cannot be written", err, filepath.Dir(target))}
	}
	return &PathError{Path: path, Err: err}
}

// resolve follows symbolic links to the file they name, as the kernel
// does; a link to a file that does not exist yet resolves to that file's
// path. The directory part is resolved first at every step, by
// filepath.EvalSymlinks, which walks it component by component as the
// kernel does: never split or joined as text before that, since text
// cleaning takes ld/.. for "." while the kernel climbs from where ld
// points (ld/../data.csv named ./data.csv, the input, while the kernel
// reaches real/data.csv), and a relative link is relative to the
// directory the link really is in. A directory that cannot be resolved (it
// does not exist) leaves the path as spelled, for the kernel to refuse. A
// path that reaches one of this process's descriptors (/dev/stdout,
// /proc/self/fd/1, or a linked directory to them) ends there: see fdOf.
func resolve(path string) (string, error) {
	for range 40 { // as the kernel's limit on link chains
		if _, err := fdOf(path); err != errNoFD {
			return path, err
		}
		dir, base := splitRaw(path)
		if base == "" || base == "." || base == ".." {
			return path, nil // a directory: Create refuses it
		}
		d, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return path, nil
		}
		path = filepath.Join(d, base) // d holds no link and no "..": joining is exact
		if _, err := fdOf(path); err != errNoFD {
			return path, err
		}
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = d + string(filepath.Separator) + dest // as spelled: the next step resolves it
		}
		path = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

// splitRaw splits path at its last separator without cleaning either
// part (filepath.Dir cleans, and cleaning "ld/.." gives ".").
func splitRaw(path string) (dir, base string) {
	i := strings.LastIndexByte(path, filepath.Separator)
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return string(filepath.Separator), path[1:]
	}
	return path[:i], path[i+1:]
}

// errNoFD is fdOf's error for a path that names no descriptor.
var errNoFD = errors.New("not a descriptor")

// fdOf returns the descriptor of this process that path names
// (/dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N,
// /proc/thread-self/fd/N, /proc/PID/fd/N and /proc/PID/task/TID/fd/N for
// this PID), errNoFD for a path that names none, and an error for a
// descriptor of another process. A descriptor is written through as it is
// open: following its link to the file behind it and renaming over that
// file would replace what a shell's >> appends to; another process's
// cannot be, and reopening it would write over its start.
func fdOf(path string) (int, error) {
	switch path = filepath.Clean(path); path {
	case "/dev/stdin":
		return 0, nil
	case "/dev/stdout":
		return 1, nil
	case "/dev/stderr":
		return 2, nil
	}
	rest, ok := strings.CutPrefix(path, "/dev/fd/")
	if !ok {
		parts := strings.Split(path, "/")
		// "", "proc", PID, ["task", TID,] "fd", N
		if len(parts) < 5 || parts[1] != "proc" {
			return 0, errNoFD
		}
		pid, k := parts[2], 3
		if len(parts) == 7 && parts[3] == "task" {
			k = 5
		}
		if len(parts) != k+2 || parts[k] != "fd" {
			return 0, errNoFD
		}
		if pid != "self" && pid != "thread-self" && pid != strconv.Itoa(os.Getpid()) {
			return 0, errors.New("names a descriptor of another process; write to a file, or to standard output")
		}
		rest = parts[k+1]
	}
	fd, err := strconv.Atoi(rest)
	if err != nil || fd < 0 {
		return 0, errNoFD
	}
	return fd, nil
}

// Write writes p. Errors are sticky: once a write failed, Write and
// Commit return that error.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	n, err := f.w.Write(p)
	if err != nil {
		f.err = &PathError{Path: f.path, Err: Unwrap(err)}
	}
	return n, f.err
}

// WriteString writes s.
func (f *File) WriteString(s string) (int, error) { return f.Write([]byte(s)) }

var _ io.StringWriter = (*File)(nil)

// InPlace reports whether the output is written where it is (standard
// output, a descriptor, a device or pipe): what was written before an
// error or an interruption has reached it, unlike a replaced file.
func (f *File) InPlace() bool { return f.pending == nil }

// Commit flushes the output and makes it final: renames the complete
// temporary file over the target, or closes the file written in place, or
// flushes standard output. Any error on the way is returned (and the
// temporary file removed).
func (f *File) Commit() error {
	if f.done {
		return f.err
	}
	f.done = true
	err := f.err
	if err == nil {
		if ferr := f.w.Flush(); ferr != nil {
			err = &PathError{Path: f.path, Err: Unwrap(ferr)}
		}
	}
	switch {
	case f.pending != nil:
		if err == nil {
			if rerr := f.pending.commit(); rerr != nil {
				err = &PathError{Path: f.path, Err: Unwrap(rerr)}
			}
		}
		f.pending.cleanup() // a no-op after a successful commit
	case f.direct != nil:
		if f.unwatch != nil {
			f.unwatch()
		}
		if cerr := f.direct.Close(); err == nil && cerr != nil {
			err = &PathError{Path: f.path, Err: Unwrap(cerr)}
		}
	}
	f.err = err
	return err
}

// Abort discards an output that was not committed: the temporary file is
// removed and the target left as it was (a file written in place is
// closed; what reached it stays). It is a no-op after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	switch {
	case f.pending != nil:
		f.pending.cleanup()
	case f.direct != nil:
		if f.unwatch != nil {
			f.unwatch()
		}
		f.direct.Close()
	}
}

// WriteFile writes data to path by the rules of Create.
func WriteFile(path string, data []byte, opt Options) error {
	f, err := Create(path, opt)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// Unwrap drops the *os.PathError and *os.LinkError wrapping, whose path
// may be a temporary name, so that a message can name the user's path
// instead.
func Unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
