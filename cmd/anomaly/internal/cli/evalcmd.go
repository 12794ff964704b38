package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	"io"
	"math"
	"text/tabwriter"

	"github.com/kernelad/anomaly/eval"
	"github.com/spf13/cobra"
)

type evalOptions struct {
	applyOptions
	json bool
	// normalClass >= 0 names the normal class of a file with class indices.
	normalClass int
}

// evalResult is what eval prints. JSON keys are stable: scripts read them.
type evalResult struct {
	AUCROC       float64   `json:"auc_roc"`
	AUCPR        float64   `json:"auc_pr"`
	PrecisionAtN float64   `json:"precision_at_n"`
	N            int       `json:"n"`
	Anomalies    int       `json:"anomalies"`
	Flagged      int       `json:"flagged"`
	Threshold    jsonFloat `json:"threshold"`
}

// jsonFloat encodes ±Inf, which JSON lacks, as the strings "+Inf"/"-Inf".
type jsonFloat float64

func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if v := float64(f); math.IsInf(v, 0) || math.IsNaN(v) {
		return json.Marshal(fmt.Sprint(v))
	}
	return json.Marshal(float64(f))
}

func newEvalCmd(stdout, stderr io.Writer) *cobra.Command {
	var o evalOptions
	c := &cobra.Command{
		Use:   "eval --model MODEL --data FILE [--json]",
		Short: "Evaluate a fitted model on labelled data",
		Long: `Evaluate a fitted model on labelled data (label 1 = anomaly, 0 = normal;
rows labelled -1 or left empty are skipped). For files whose labels are
class indices (the tensor .npz files), --normal-class N makes class N normal
and every other class anomalous.

Prints auc_roc (area under the ROC curve, ties counted one half), auc_pr
(average precision, step-wise as scikit-learn's average_precision_score),
precision_at_n (share of anomalies among the n highest scores, n = the number
of anomalies), n (rows evaluated), anomalies, flagged (rows scoring above the
model's threshold) and threshold. When the data file and the model both name
their columns, the names must be the model's, in the order of the fit.`,
		Example: `  anomaly eval --model model.bin --data test.csv --json`,
		Args:    noArgs,
	}
	c.RunE = runRequired([]string{"model", "data"}, func(ctx context.Context) error {
		o.notes = stderr
		return runEval(ctx, o, stdout)
	})
	o.bind(c, "labelled data file")
	f := c.Flags()
	f.IntVar(&o.normalClass, "normal-class", -1, "for files with class indices (tensor .npz): the normal class, every other class an anomaly (-1: none)")
	f.BoolVar(&o.json, "json", false, `print JSON: {"auc_roc", "auc_pr", "precision_at_n", "n", "anomalies", "flagged", "threshold"}`)
	return c
}

// runEval is the eval command: open the model and the labelled data,
// score every row in one pass, keep the labelled rows and print the
// figures.
func runEval(ctx context.Context, o evalOptions, out io.Writer) error {
	if err := checkNormalClass(o.normalClass); err != nil {
		return err
	}
	// A signal ends eval with one line, as it ends fit and score (it
	// killed the process without a word).
	ctx, stop := stopSignals(ctx)
	defer stop()
	interrupted := &exitError{ExitInterrupted, errors.New("eval interrupted")}
	return o.withOpened(ctx, interrupted, func(ld opened, bar *progressBar) error {
		scores, y, err := o.scoreLabelled(ctx, ld, bar, interrupted)
		if err != nil {
			return err
		}
		r := newEvalResult(scores, y, ld.d.Threshold())
		if 2*r.Anomalies > r.N && o.notes != nil {
			// 40 of 60 rows labelled 1 evaluated to AUC 0 without a word:
			// labels written the other way round (1 = normal) read so.
			fmt.Fprintf(o.notes, "anomaly: note: %s: %d of the %d labelled rows are anomalies (label 1), the majority: if 1 marks the normal rows in this file, its labels are the other way round from what eval reads (1 = anomaly, 0 = normal), and AUC-ROC reads 1 − the true figure\n", o.name(), r.Anomalies, r.N)
		}
		return o.print(out, r)
	})
}

// scoreLabelled scores every row of the opened file in one pass, keeping
// each row's score and label and nothing else of the data, and returns the
// scores and labels (0 or 1) of the labelled rows.
func (o evalOptions) scoreLabelled(ctx context.Context, ld opened, bar *progressBar, interrupted error) ([]float64, []int, error) {
	// Labels the header decides (a CSV label column, an .npz y) are
	// known before the pass; others (a LIBSVM file's) once it is done.
	if lab := ld.f.Labels(); lab.Final && lab.Kind == dataset.NoLabels {
		return nil, nil, noLabels(false, o.name())
	}
	noted := len(ld.f.Notes())
	src := &labeledSource{File: ld.f}
	var all []float64
	_, err := beside(ctx, func() (struct{}, error) {
		return struct{}{}, detector.ScoreSource(ctx, ld.d, src, func(_ int, scores []float64) error {
			all = append(all, scores...)
			return nil
		})
	})
	bar.done()
	if ctx.Err() != nil {
		return nil, nil, interrupted
	}
	if err != nil {
		return nil, nil, streamErr(o.name(), err)
	}
	printNotes(o.notes, o.name(), ld.f.Notes()[noted:]) // what only the whole pass decided
	yy, err := o.labels(ld.f.Labels().Resolve(src.labels))
	if err != nil {
		return nil, nil, err
	}
	// Keep the labelled rows.
	scores := make([]float64, 0, len(all))
	y := make([]int, 0, len(all))
	for i, s := range all {
		if yy[i] == 0 || yy[i] == 1 {
			scores = append(scores, s)
			y = append(y, yy[i])
		}
	}
	if len(scores) == 0 {
		return nil, nil, dataErr(fmt.Errorf("%s: every row is unlabeled (-1)", o.name()))
	}
	if err := eval.Check(scores, y); err != nil {
		return nil, nil, dataErr(fmt.Errorf("%s: %w", o.name(), err))
	}
	return scores, y, nil
}

// labels returns the rows' labels (1 anomaly, 0 normal, -1 unlabeled):
// the file's anomaly labels yy, or with --normal-class its class indices.
func (o evalOptions) labels(yy, class []int) ([]int, error) {
	if o.normalClass >= 0 {
		if class == nil {
			return nil, usagef("--normal-class: %s has anomaly labels, not class indices; drop --normal-class", o.name())
		}
		found := false
		yy = class
		for i, c := range class {
			switch {
			case c < 0:
				yy[i] = -1
			case c == o.normalClass:
				yy[i], found = 0, true
			default:
				yy[i] = 1
			}
		}
		if !found {
			return nil, dataErr(fmt.Errorf("%s: no row of class %d", o.name(), o.normalClass))
		}
	}
	if yy == nil {
		return nil, noLabels(class != nil, o.name())
	}
	return yy, nil
}

// newEvalResult returns the figures of the scores of labelled rows
// against their labels and the model's threshold.
func newEvalResult(scores []float64, y []int, threshold float64) evalResult {
	r := evalResult{
		AUCROC:       eval.AUCROC(scores, y),
		AUCPR:        eval.AveragePrecision(scores, y),
		PrecisionAtN: eval.PrecisionAtN(scores, y, 0),
		N:            len(scores),
		Threshold:    jsonFloat(threshold),
	}
	for i, s := range scores {
		r.Anomalies += y[i]
		if s > threshold {
			r.Flagged++
		}
	}
	return r
}

// print writes the figures as JSON (--json) or as an aligned table.
func (o evalOptions) print(out io.Writer, r evalResult) error {
	if o.json {
		return json.NewEncoder(out).Encode(r)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "auc_roc\t%.6f\n", r.AUCROC)
	fmt.Fprintf(tw, "auc_pr\t%.6f\n", r.AUCPR)
	fmt.Fprintf(tw, "precision_at_n\t%.6f\n", r.PrecisionAtN)
	fmt.Fprintf(tw, "n\t%d\n", r.N)
	fmt.Fprintf(tw, "anomalies\t%d\n", r.Anomalies)
	fmt.Fprintf(tw, "flagged\t%d\n", r.Flagged)
	fmt.Fprintf(tw, "threshold\t%.6g\n", float64(r.Threshold))
	return tw.Flush()
}
