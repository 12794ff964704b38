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
A label column in the data file is ignored.`,
		Example: `  anomaly score --model model.bin --data new.csv --out scores.csv`,
		Args:    noArgs,
	}
	c.RunE = runRequired([]string{"model", "data"}, func(ctx context.Context) error {
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
	// From here on SIGINT and SIGTERM cancel ctx instead of killing the
	// process, so a temporary output file is always removed.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	interrupted := &exitError{ExitInterrupted, fmt.Errorf("score interrupted; no scores written to %s", path)}
	if path == "-" {
		interrupted = &exitError{ExitInterrupted, errors.New("score interrupted")}
	}
	d, ds, err := o.load()
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
	out, err := createOutput(path, stdout, o.stdin, o.model, o.data)
	if err != nil {
		return err
	}
	defer out.Abort()
	if writeScores(ctx, out, scores, d.Threshold()) != nil {
		return interrupted
	}
	return commitOutput(out)
}

// scoreContext runs d.Score, which takes no context, and returns ctx.Err()
// as soon as ctx is done: the command then exits, and the scoring
// goroutine ends with the process.
func scoreContext(ctx context.Context, d detector.Detector, X mat.Matrix) ([]float64, error) {
	type result struct {
		scores []float64
		err    error
	}
	done := make(chan result, 1)
	go func() {
		s, err := d.Score(nil, X)
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.scores, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

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
		buf = strconv.AppendFloat(buf[:0], s, 'g', -1, 64)
		buf = append(buf, ',', byte('0'+labels[i]), '\n')
		w.Write(buf)
	}
	return nil
}
