package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/kernelad/anomaly/dataset"
)

// isTerminal reports whether w is a terminal: progress is drawn there and
// nowhere else (not into files, pipes or /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// stdoutIsTerminal reports whether the process's standard output is a
// terminal (a variable, for the tests).
var stdoutIsTerminal = func() bool { return term.IsTerminal(int(os.Stdout.Fd())) }

// progressBar draws one self-overwriting status line on a terminal, at
// most ten times a second.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	last  time.Time
	drawn bool
}

func newProgressBar(w io.Writer) *progressBar { return &progressBar{w: w} }

// update is a progress callback (detector.Options.Progress).
func (b *progressBar) update(stage string, done, total int) {
	b.draw(done == total, func() string {
		if total > 0 {
			return fmt.Sprintf("%s %d/%d (%.0f%%)", stage, done, total, 100*float64(done)/float64(total))
		}
		return fmt.Sprintf("%s %d", stage, done)
	})
}

// readBytes is a dataset.Options.Progress: the bytes of the data read,
// of total (−1 when not known).
func (b *progressBar) readBytes(done, total int64) {
	b.draw(done == total, func() string {
		if total > 0 {
			return fmt.Sprintf("read %s of %s (%.0f%%)", dataset.FormatBytes(done), dataset.FormatBytes(total), 100*float64(done)/float64(total))
		}
		return "read " + dataset.FormatBytes(done)
	})
}

// draw overwrites the line with line(), unless the last drawing is less
// than 100 ms old and the work is not finished.
func (b *progressBar) draw(finished bool, line func() string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	if now.Sub(b.last) < 100*time.Millisecond && !finished {
		return
	}
	b.last = now
	fmt.Fprintf(b.w, "\r\x1b[K%s", line())
	b.drawn = true
}

// done clears the line. It is a no-op on a nil bar.
func (b *progressBar) done() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprint(b.w, "\r\x1b[K")
	}
}
