package cli

import (
	"context"
	"io"
	"strconv"

	"github.com/kernelad/anomaly/detector"
	"github.com/spf13/cobra"
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
	c.RunE = runRequired([]string{"model", "data"}, func(context.Context) error {
		return runScore(o, stdout)
	})
	o.bind(c, "data file to score")
	c.Flags().StringVar(&o.out, "out", "", "CSV file to write (default or -: standard output)")
	return c
}

func runScore(o scoreOptions, stdout io.Writer) error {
	path := o.out
	if path == "" {
		path = "-"
	}
	if err := checkOutput(path, o.model, o.data); err != nil {
		return err
	}
	d, ds, err := o.load()
	if err != nil {
		return err
	}
	scores, err := d.Score(nil, ds.X)
	if err != nil {
		return detectorErr(o.name(), err)
	}
	out, err := createOutput(path, stdout, o.model, o.data)
	if err != nil {
		return err
	}
	defer out.Abort()
	writeScores(out, scores, d.Threshold())
	return commitOutput(out)
}

// writeScores writes the score CSV. Write errors surface at Flush/Commit.
func writeScores(w io.Writer, scores []float64, threshold float64) {
	io.WriteString(w, "score,anomaly\n")
	labels := detector.Label(nil, scores, threshold)
	buf := make([]byte, 0, 32)
	for i, s := range scores {
		buf = strconv.AppendFloat(buf[:0], s, 'g', -1, 64)
		buf = append(buf, ',', byte('0'+labels[i]), '\n')
		w.Write(buf)
	}
}
