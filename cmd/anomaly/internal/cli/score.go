package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/output"
	"github.com/kernelad/anomaly/param"
	"github.com/spf13/cobra"
	"gonum.org/v1/gonum/mat"
)

type scoreOptions struct {
	applyOptions
	out string
}

func newScoreCmd(stdout, stderr io.Writer) *cobra.Command {
	var o scoreOptions
	c := &cobra.Command{
		Use:   "score --model MODEL --data FILE [--out FILE]",
		Short: "Score the rows of a data file with a fitted model",
		Long: `Score the rows of a data file with a fitted model.

Prints CSV with the header "score,anomaly" and one row per input row, in input
order: the score (higher = more anomalous; printed so that it reads back to
the same float64) and 1 when the score is above the model's threshold, else 0.
With --out the CSV is written to a temporary file and renamed into place.
A label column in the data file is ignored. When the data file and the model
both name their columns (a CSV or TSV header, ARFF attributes), the names
must be the model's, in the order of the fit.`,
		Example: `  anomaly score --model model.bin --data new.csv --out scores.csv`,
		Args:    noArgs,
	}
	c.RunE = runRequired([]string{"model", "data"}, func(ctx context.Context) error {
		o.notes = stderr
		return runScore(ctx, o, stdout)
	})
	o.bind(c, "data file to score")
	c.Flags().StringVar(&o.out, "out", "", "CSV file to write (default or -: standard output)")
	return c
}

// runScore is the score command: check the output, open the model and
// the data, and write the scores as the chunks of the data are scored.
func runScore(ctx context.Context, o scoreOptions, stdout io.Writer) error {
	path := o.out
	if path == "" {
		path = "-"
	}
	if err := checkOutput(path, o.stdin, o.model, o.data); err != nil {
		return err
	}
	if err := notOverModel(path, "the scores"); err != nil {
		return err
	}
	// From here on SIGINT and SIGTERM cancel ctx instead of killing the
	// process, so a temporary output file is always removed.
	ctx, stop := stopSignals(ctx)
	defer stop()
	interrupted := &exitError{ExitInterrupted, fmt.Errorf("score interrupted; no scores written to %s", path)}
	if path == "-" {
		interrupted = &exitError{ExitInterrupted, errors.New("score interrupted")}
	}
	return o.withOpened(ctx, interrupted, func(ld opened, bar *progressBar) error {
		out, err := createOutput(ctx, path, stdout, o.stdin, o.model, o.data)
		if err != nil {
			return err
		}
		defer out.Abort()
		return o.write(ctx, ld, out, path, bar, interrupted)
	})
}

// write scores the data a chunk at a time and writes the scores as they
// come: to the temporary file renamed at the end, or to standard output.
func (o scoreOptions) write(ctx context.Context, ld opened, out *output.File, path string, bar *progressBar, interrupted error) error {
	// Reading beside the signals: a read blocked on a named pipe does not
	// look at ctx.
	threshold := ld.d.Threshold()
	io.WriteString(out, "score,anomaly\n")
	var buf []byte
	_, err := beside(ctx, func() (struct{}, error) {
		return struct{}{}, detector.ScoreSource(ctx, ld.d, ld.f, func(_ int, scores []float64) error {
			buf = appendScores(buf[:0], scores, threshold)
			_, err := out.Write(buf)
			return err
		})
	})
	bar.done()
	// A pipe or device stopped by the signal: what was written has
	// reached it.
	cutShort := &exitError{ExitInterrupted, fmt.Errorf("score interrupted; the scores written to %s were cut short", path)}
	if ctx.Err() != nil {
		if out.InPlace() && path != "-" {
			return cutShort
		}
		return interrupted
	}
	if err != nil {
		return streamErr(o.name(), err)
	}
	if err := commitOutput(out); err != nil {
		if ctx.Err() != nil { // a pipe's write ended by its deadline
			return cutShort
		}
		return err
	}
	return nil
}

// opened is a model and the data file to apply it to.
type opened struct {
	d detector.Detector
	f dataset.File
}

// withOpened loads the model and opens the data file beside the signals
// (a read blocked on a named pipe does not look at ctx), with a progress
// bar, and calls fn on them; the file is closed when fn returns.
// interrupted is the error when ctx ends first.
func (o applyOptions) withOpened(ctx context.Context, interrupted error, fn func(ld opened, bar *progressBar) error) error {
	bar := o.progressBar()
	defer bar.done()
	ld, err := beside(ctx, func() (opened, error) {
		d, f, err := o.openApply(bar.readProgress())
		return opened{d, f}, err
	})
	if ctx.Err() != nil {
		return interrupted
	}
	if err != nil {
		return err
	}
	defer ld.f.Close()
	return fn(ld, bar)
}

// streamErr classifies an error of a pass over a data file: the file's
// own errors name it already (*dataset.Error, *dataset.MemoryError), the
// detector's get its name.
func streamErr(path string, err error) error {
	var (
		de *dataset.Error
		me *dataset.MemoryError
		we *dataset.WidthError
		ee *exitError
	)
	var (
		pe *param.Error
		oe *output.PathError
	)
	switch {
	case errors.As(err, &ee):
		return ee // the command's own refusal, without the stages it passed through
	case errors.As(err, &pe): // a parameter the data shows out of range
		return usageErr(err)
	case errors.As(err, &we) && errors.As(err, &de) && de.Line > 0:
		// The width a file is read with is the model's.
		return dataErr(fmt.Errorf("%s: line %d has feature index %d, past the %d features the model was fitted on (indices 1 to %d)", de.Path, de.Line, we.Index, we.Width, we.Width))
	case errors.As(err, &de):
		// The file's own error: it names the file, row and column; the
		// method or stage it passed through adds nothing.
		return dataErr(de)
	case errors.As(err, &me):
		return dataErr(err)
	case errors.As(err, &oe):
		// Writing the scores failed (a closed pipe, a full disk): an
		// output error, whatever data was being read.
		return internalErr(oe)
	}
	return detectorErr(path, err)
}

// stopSignals returns ctx cancelled by SIGINT, SIGTERM or SIGHUP (a
// closed terminal; it left a score's temporary file behind) instead of
// the process being killed, so that a command removes its temporary
// output, says what it did not write and exits 130.
func stopSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

// scoreContext scores X with d, stopping when ctx ends (the scoring
// itself stops: detector.ScoreContext), beside ctx (see beside) for a
// detector that cannot stop.
func scoreContext(ctx context.Context, d detector.Detector, X mat.Matrix) ([]float64, error) {
	return beside(ctx, func() ([]float64, error) { return detector.ScoreContext(ctx, d, nil, X) })
}

// beside runs f, which takes no context (a Score, a reader blocked on a
// named pipe or a stalled standard input), in a goroutine and returns its
// result, or ctx.Err() as soon as ctx is done: the command then removes
// its temporary output and exits 130 while f is abandoned. A panic in f
// becomes an error here (the recover of RunIO cannot reach another
// goroutine; it printed a Go stack trace): the command reports it as an
// internal error in one line.
func beside[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				var zero T
				done <- result{zero, internalErr(&panicError{r})}
			}
		}()
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

// loaded is a model and the data to apply it to.
type loaded struct {
	d  detector.Detector
	ds *dataset.Dataset
}

// loadBeside is load run beside ctx (see beside): a model or data read
// blocked on a pipe ends with ctx.Err() when a signal comes.
func (o applyOptions) loadBeside(ctx context.Context) (detector.Detector, *dataset.Dataset, error) {
	ld, err := beside(ctx, func() (loaded, error) {
		d, ds, err := o.load()
		return loaded{d, ds}, err
	})
	return ld.d, ld.ds, err
}

// panicError is a panic recovered by beside.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("internal error: %v", e.value) }

// appendScores appends the score CSV's lines of scores to buf: the score
// (printed so that it reads back to the same float64) and 1 when it is
// above threshold, else 0.
func appendScores(buf []byte, scores []float64, threshold float64) []byte {
	for _, s := range scores {
		buf = strconv.AppendFloat(buf, s+0, 'g', -1, 64) // s+0: −0 prints as 0
		flag := byte('0')
		if s > threshold {
			flag = '1'
		}
		buf = append(buf, ',', flag, '\n')
	}
	return buf
}
