package exposebeam

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/kernelad/anomaly/internal/output"
)

// How outputs are written. A local output (a path without a scheme) is
// written by the core's internal/output package, as 'anomaly fit' and
// 'anomaly score' write theirs: checked before any work (not an input,
// its directory exists and can be written), and made final only when the
// pipeline has finished, by a temporary file in the target's directory
// renamed over it, so that an interrupted or failed run leaves the old
// file. The pipeline's workers write to a staging file (pending) that the
// launcher created under a name of its own, and the launcher copies it
// into place through output.Create after beam.Run returned without error.
//
// A remote output (gs://, s3://, …) has only Beam's filesystem layer:
// the workers write a staging object under a new random name beside the
// target, and the launcher renames it over the target with
// filesystem.Rename (the filesystem's Renamer, or Copier + Remover: on
// GCS an object is created whole when its upload completes, so the target
// is the old object or the new one, never a part, but the copy and the
// removal of the staging object are two steps, and a launcher killed
// between them leaves the staging object behind). Remote files have no
// identity to compare (no links, no inodes): an output is an input when
// their names are equal.

// isLocal reports whether p is a path of the local filesystem.
func isLocal(p string) bool { return !strings.Contains(p, "://") }

// CheckOutput makes, before any work, the checks the output out will
// pass when it is written: it is none of inputs (a *output.SameFileError)
// and, when local, it can be written (output.Check: its directory exists,
// it is not a directory; a *output.PathError).
func CheckOutput(out string, inputs []string) error {
	if isLocal(out) {
		var local []string
		for _, in := range inputs {
			if isLocal(in) {
				local = append(local, in)
			}
		}
		return output.Check(out, output.Options{Inputs: local})
	}
	// A remote filesystem: the names are the best comparison available.
	for _, in := range inputs {
		if !isLocal(in) && path.Clean(in) == path.Clean(out) {
			return &output.SameFileError{Output: out, Input: in}
		}
	}
	return nil
}

// pending is a staging file the pipeline writes and the launcher makes
// final (commit) or removes (discard).
type pending struct {
	Target, Temp string
}

// newPending makes a staging file beside target under a name no file has:
// locally created exclusively (os.CreateTemp), remotely a name with 64
// random bits.
func newPending(target, suffix string) (*pending, error) {
	if isLocal(target) {
		dir, base := filepath.Split(target)
		if dir == "" {
			dir = "."
		}
		f, err := os.CreateTemp(dir, "."+clip(base)+".beam-*"+suffix)
		if err != nil {
			return nil, &output.PathError{Path: target, Err: output.Unwrap(err)}
		}
		name := f.Name()
		f.Close()
		return &pending{Target: target, Temp: name}, nil
	}
	var b [8]byte
	rand.Read(b[:])
	return &pending{Target: target, Temp: target + ".beam-" + hex.EncodeToString(b[:]) + suffix}, nil
}

// clip shortens a file name so that a staging name made from it stays
// within the 255 bytes of a name.
func clip(base string) string {
	if len(base) > 200 {
		return base[:200]
	}
	return base
}

// commit makes the staging file the target: locally through output.Create
// (inputs are checked again), remotely by filesystem.Rename.
func (p *pending) commit(ctx context.Context, inputs []string) error {
	if !isLocal(p.Target) {
		return withFS(ctx, p.Target, func(fs filesystem.Interface) error {
			if err := filesystem.Rename(ctx, fs, p.Temp, p.Target); err != nil {
				return &output.PathError{Path: p.Target, Err: err}
			}
			return nil
		})
	}
	defer p.discard(ctx)
	src, err := os.Open(p.Temp)
	if err != nil {
		return &output.PathError{Path: p.Target, Err: output.Unwrap(err)}
	}
	defer src.Close()
	var local []string
	for _, in := range inputs {
		if isLocal(in) {
			local = append(local, in)
		}
	}
	out, err := output.Create(p.Target, output.Options{Inputs: local, Context: ctx})
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := io.Copy(out, src); err != nil {
		var pe *output.PathError
		if errors.As(err, &pe) {
			return err
		}
		return &output.PathError{Path: p.Target, Err: output.Unwrap(err)}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return out.Commit()
}

// discard removes the staging file.
func (p *pending) discard(ctx context.Context) {
	if isLocal(p.Temp) {
		os.Remove(p.Temp)
		return
	}
	removeFile(context.WithoutCancel(ctx), p.Temp)
}

// runPipeline runs p and returns when it ends or, earlier, when ctx is
// cancelled (SIGINT, SIGTERM): the direct runner does not stop a running
// plan when its context ends. A pipeline left running writes only to
// staging files (opened without O_CREATE when local, see openStaging), so
// removing them is enough.
func runPipeline(ctx context.Context, runner string, p *beam.Pipeline) (beam.PipelineResult, error) {
	type result struct {
		res beam.PipelineResult
		err error
	}
	ch := make(chan result, 1)
	go func() {
		res, err := beam.Run(ctx, runner, p)
		ch <- result{res, err}
	}()
	select {
	case r := <-ch:
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return r.res, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// DataError is a problem with the data (a shard that does not parse,
// shards whose columns differ, data whose columns are not the model's),
// found by a worker or by the launcher.
type DataError struct{ Msg string }

// dataPrefix begins the text of a DataError. A worker's error reaches the
// launcher as text only: Beam wraps it in its plan dump (the direct
// runner's doFnError has no Unwrap, and a remote runner sends the text),
// so Cause finds the kind by this prefix on the error's last line.
const dataPrefix = "bad data: "

func (e *DataError) Error() string { return dataPrefix + e.Msg }

// Cause returns the cause of a pipeline's error, one line without Beam's
// plan dump (its last line), and whether it is a DataError.
func Cause(err error) (msg string, data bool) {
	var de *DataError
	if errors.As(err, &de) {
		return de.Msg, true
	}
	msg = strings.TrimSpace(err.Error())
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[i+1:])
	}
	if m, ok := strings.CutPrefix(msg, dataPrefix); ok {
		return m, true
	}
	return msg, false
}
