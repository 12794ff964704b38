package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kernelad/anomaly/detector"
	"github.com/spf13/cobra"
)

type exportOptions struct {
	model  string
	format string
	out    string
}

// libsvmWriter is implemented by models that LIBSVM can load (ocsvm).
type libsvmWriter interface {
	WriteLIBSVM(w io.Writer) error
}

func newExportCmd(stderr io.Writer) *cobra.Command {
	var o exportOptions
	c := &cobra.Command{
		Use:   "export --model MODEL --format libsvm --out FILE",
		Short: "Write a fitted model in another tool's format (LIBSVM)",
		Long: `Write a fitted model in another tool's format.

--format libsvm writes a fitted ocsvm model (kernel rbf, poly or linear) as
a LIBSVM model file that svm-predict and the LIBSVM bindings load. LIBSVM
solves the one-class dual with Σα = νn, so the file's coefficients and rho
are νn times the model's (n training rows). svm-predict labels a row +1
(inlier) when Σ coef·k(sv, x) − rho > 0, which is exactly when "anomaly
score" gives it a negative score: svm-predict's −1 means score ≥ 0, the
model's zero level, not the contamination threshold that the score
command's anomaly column uses.`,
		Example: `  anomaly fit --method ocsvm --data train.csv --out model.bin
  anomaly export --model model.bin --format libsvm --out model.libsvm
  svm-predict test.libsvm model.libsvm predictions.txt`,
		Args: noArgs,
	}
	c.RunE = runRequired([]string{"model", "out"}, func(ctx context.Context) error {
		return runExport(ctx, o, stderr)
	})
	f := c.Flags()
	f.StringVar(&o.model, "model", "", "model file written by fit")
	f.StringVar(&o.format, "format", "libsvm", "output format: libsvm")
	f.StringVar(&o.out, "out", "", "file to write")
	return c
}

// runExport is the export command: check the flags and the output, make
// the model's LIBSVM text and write it.
func runExport(ctx context.Context, o exportOptions, stderr io.Writer) error {
	if o.format != "libsvm" {
		return usagef("--format %q: the only export format is libsvm", o.format)
	}
	if err := checkOutput(o.out, nil, o.model); err != nil {
		return err
	}
	if err := notOverModel(o.out, "the LIBSVM model"); err != nil {
		return err
	}
	// The LIBSVM text is made first (a model with no LIBSVM form is
	// refused before the output is opened: a named pipe waited for its
	// reader first), then written; it is no larger than the model,
	// whose loading the budget allowed.
	name, text, err := libsvmText(o.model)
	if err != nil {
		return err
	}
	ctx, stop := stopSignals(ctx)
	defer stop()
	out, err := createOutput(ctx, o.out, nil, nil, o.model)
	if err != nil {
		return err
	}
	defer out.Abort()
	if _, err := out.Write(text); err != nil {
		return internalErr(err)
	}
	if err := commitOutput(out); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%s: wrote %s model %s as LIBSVM to %s\n", name, name, o.model, o.out)
	return nil
}

// libsvmText loads the model file and returns its method and its LIBSVM
// text.
func libsvmText(model string) (string, []byte, error) {
	name, _, d, err := loadModel(model)
	if err != nil {
		return "", nil, err
	}
	lw, ok := d.(libsvmWriter)
	if !ok {
		return "", nil, usagef("%s: the model is of method %s, which has no LIBSVM form; only ocsvm models export to libsvm", model, name)
	}
	var text bytes.Buffer
	if err := lw.WriteLIBSVM(&text); err != nil {
		if errors.Is(err, detector.ErrNotFitted) {
			return "", nil, dataErr(fmt.Errorf("%s: %w", model, err))
		}
		return "", nil, usageErr(fmt.Errorf("%s: %w", model, err))
	}
	return name, text.Bytes(), nil
}
