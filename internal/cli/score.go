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
	d, ds, err := o.loadBeside(ctx)
	if ctx.Err() != nil {
		return interrupted
	}
	if err != nil {
		return err
	}
	scores, err := scoreContext(ctx, d, ds.X)
	if ctx.Err() != nil {
		return interrupted
	}
	if err != nil {
		return detectorErr(o.name(), err)
	}
	out, err := createOutput(ctx, path, stdout, o.stdin, o.model, o.data)
	if err != nil {
		return err
	}
	defer out.Abort()
	// A pipe or device stopped by the signal: what was written has
	// reached it.
	cutShort := &exitError{ExitInterrupted, fmt.Errorf("score interrupted; the scores written to %s were cut short", path)}
	if writeScores(ctx, out, scores, d.Threshold()) != nil {
		if out.InPlace() && path != "-" {
			return cutShort
		}
		return interrupted
	}
	if err := commitOutput(out); err != nil {
		if ctx.Err() != nil { // a pipe's write ended by its deadline
			return cutShort
		}
		return err
	}
	return nil
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

// writeScores writes the score CSV, looking at ctx every 65,536 rows; it
// returns ctx.Err() once ctx is done. Write errors surface at Flush/Commit.
func writeScores(ctx context.Context, w io.Writer, scores []float64, threshold float64) error {
	io.WriteString(w, "score,anomaly\n")
	labels := detector.Label(nil, scores, threshold)
	buf := make([]byte, 0, 32)
	for i, s := range scores {
		if i%(1<<16) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		buf = strconv.AppendFloat(buf[:0], s+0, 'g', -1, 64) // s+0: −0 prints as 0
		buf = append(buf, ',', byte('0'+labels[i]), '\n')
		w.Write(buf)
	}
	return nil
}
