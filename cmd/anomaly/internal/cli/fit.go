package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	kit "github.com/kernelad/anomaly/detector/method"
	"github.com/kernelad/anomaly/internal/output"
	"github.com/kernelad/anomaly/tensor"
	"github.com/spf13/cobra"
)

type fitOptions struct {
	dataFlags
	method        string
	out           string
	shape         string
	sets          []string
	contamination string
	seed          uint64
	labeled       bool
	normalClass   int
	sample        int
	// Which of the optional flags were given.
	hasContamination, hasSeed bool
}

func newFitCmd(stderr io.Writer) *cobra.Command {
	var o fitOptions
	c := &cobra.Command{
		Use:   "fit --method NAME --data FILE --out MODEL [--set k=v]...",
		Short: "Fit a detector to the rows of a data file and save the model",
		Long: `Fit a detector to the rows of a data file and save the model.

The model file holds the method, its parameters, the names of the data's
feature columns when the file has them (a CSV or TSV header, ARFF
attributes: score and eval then check them) and the fitted state; it is
written to a temporary file and renamed into place, so an interrupted or
failed fit leaves no model behind. A one-line summary goes to stderr; when
stderr is a terminal, methods that report progress show a progress line.

--contamination and --seed are the method parameters contamination and seed.
Tensor methods take the sample shape from --shape, or from an N-d array in a
.npy/.npz file.`,
		Example: `  anomaly fit --method expose --data train.csv --out model.bin --set landmarks=1000 --seed 1`,
		Args:    noArgs,
	}
	c.RunE = runRequired([]string{"method", "data", "out"}, func(ctx context.Context) error {
		o.hasContamination = c.Flags().Changed("contamination")
		o.hasSeed = c.Flags().Changed("seed")
		return runFit(ctx, o, stderr)
	})
	f := c.Flags()
	f.StringVar(&o.method, "method", "", "detection method (see 'anomaly methods')")
	o.dataFlags.bind(c, "training data file", "memory the fit may plan to use, as in 4GB (default: 75% of the machine's, the container's or the address-space limit)")
	f.StringVar(&o.out, "out", "", "model file to write (- for standard output)")
	f.StringVar(&o.shape, "shape", "", "sample shape of tensor data, as in 24x51 (the product is the feature count)")
	f.StringArrayVar(&o.sets, "set", nil, "method parameter key=value (repeatable)")
	// A string, read by the parameter layer as --set contamination is,
	// so that both give the same messages (pflag's said "strconv.
	// ParseFloat: parsing "1e999": value out of range").
	f.StringVar(&o.contamination, "contamination", strconv.FormatFloat(kit.DefaultContamination, 'g', -1, 64), "expected share of anomalies in the training data, in (0, 0.5]")
	f.Uint64Var(&o.seed, "seed", 0, "random seed (of the method, and of --sample's draw)")
	f.IntVar(&o.sample, "sample", 0, "fit on a uniform random sample of this many rows, drawn with --seed (0: every row); the parameter sample")
	f.IntVar(&o.normalClass, "normal-class", -1, "for files with class indices (tensor .npz): fit on the rows of this class only (-1: all rows)")
	f.BoolVar(&o.labeled, "labeled", false, "use the labels of the data file (semi-supervised methods only)")
	return c
}

// runFit is the fit command: check the flags and the output, open the
// training data, build the detector within the memory budget, fit it and
// save the model.
func runFit(ctx context.Context, o fitOptions, stderr io.Writer) error {
	// From here on SIGINT and SIGTERM cancel ctx instead of killing the
	// process, so the temporary model file is always removed.
	ctx, stop := stopSignals(ctx)
	defer stop()
	params, shape, err := checkFit(o, stderr)
	if err != nil {
		return err
	}
	interrupted := &exitError{ExitInterrupted, fmt.Errorf("fit interrupted; no model written to %s", o.out)}
	bar, opts := fitProgress(stderr)
	// Read beside the signals: a reader blocked on a named pipe or a
	// stalled standard input does not look at ctx.
	in, err := beside(ctx, func() (fitInput, error) { return o.input(params, opts) })
	if ctx.Err() != nil {
		return interrupted
	}
	if err != nil {
		return err
	}
	defer in.close()
	printNotes(stderr, o.name(), in.notes())
	d, err := o.build(&in, params, shape, opts)
	if err != nil {
		return err
	}
	secs, err := o.fit(ctx, d, in, bar)
	if ctx.Err() != nil {
		return interrupted
	}
	if err == nil {
		err = o.save(ctx, d, in, interrupted, stderr)
	}
	if err != nil {
		return err
	}
	o.summary(stderr, d, in, secs)
	return nil
}

// fitProgress returns a progress bar on stderr when it is a terminal,
// and the detector options that report to it; else nil and no progress.
func fitProgress(stderr io.Writer) (*progressBar, detector.Options) {
	if !isTerminal(stderr) {
		return nil, detector.Options{}
	}
	bar := newProgressBar(stderr)
	return bar, detector.Options{Progress: bar.update}
}

// checkFit checks what can be checked before the data is read: the method,
// its parameters and the output. It returns the parameters and the sample
// shape given by flag.
func checkFit(o fitOptions, stderr io.Writer) (params map[string]string, shape []int, err error) {
	m, ok := detector.Lookup(o.method)
	if !ok {
		return nil, nil, unknownMethod("", o.method)
	}
	if params, shape, err = fitParams(o, m); err != nil {
		return nil, nil, err
	}
	if o.hasSeed && !m.Has("seed") && o.sample == 0 {
		fmt.Fprintf(stderr, "anomaly: note: %s makes no random choice: --seed changes nothing\n", o.method)
	}
	// Check the parameters before reading the data, so mistakes are
	// reported before a large file is loaded.
	if err := m.Check(params); err != nil {
		return nil, nil, usageErr(err)
	}
	if o.labeled && !m.Labeled {
		return nil, nil, usagef("--labeled: method %s does not use labels", o.method)
	}
	return params, shape, o.checkOut()
}

// checkOut checks the model's output before the data is read, so a model
// that would replace its own training data, or cannot be written, fails
// first; it is created after the fit, so that a process killed while it
// fits (SIGKILL, the out-of-memory killer) leaves no empty temporary file.
func (o fitOptions) checkOut() error {
	if err := checkOutput(o.out, o.stdin, o.data); err != nil {
		return err
	}
	if o.out != "-" && dataset.Supported(o.out) {
		// A model written over an existing data file destroyed it (a
		// typo, fit for score: fit --data train.csv --out test.csv).
		if st, err := os.Stat(o.out); err == nil && st.Mode().IsRegular() && !isModelFile(o.out) {
			return usagef("--out %s: the file exists and is named as a data file; a model would replace it: name the model otherwise (as model.bin), or remove the file first", o.out)
		}
	}
	if o.out == "-" && stdoutIsTerminal() {
		// As gzip refuses to: the model was written to the terminal as
		// binary bytes.
		return usagef("--out -: the model is binary and standard output is a terminal; redirect it (> model.bin) or give a file name")
	}
	return nil
}

// build checks the opened data against --shape, --normal-class and
// --labeled, and returns the detector to fit (the one built for a file
// read chunk by chunk, or a new one), once its memory estimate is within
// the budget.
func (o fitOptions) build(in *fitInput, params map[string]string, shape []int, opts detector.Options) (detector.Detector, error) {
	if err := o.checkInput(in, params, shape); err != nil {
		return nil, err
	}
	d := in.d
	if d == nil {
		opts.Shape = in.ds.Shape
		var err error
		if d, err = detector.New(o.method, params, opts); err != nil {
			return nil, paramOrDataErr(o.name(), err)
		}
	}
	if in.ds != nil {
		return d, checkMemory(d, kit.FitOp, in.ds, o.maxMemory, o.method, params, 0)
	}
	return d, checkFileMemory(d, in.file, o.data, o.maxMemory, o.method, params)
}

// checkInput checks the sample shape given by flag against the data, and
// keeps the rows of --normal-class of a data set loaded whole.
func (o fitOptions) checkInput(in *fitInput, params map[string]string, shape []int) error {
	given := "--shape " + o.shape
	if o.shape == "" {
		given = "--set shape=" + params["shape"]
	}
	if in.ds == nil {
		if shape == nil {
			return nil
		}
		if fs := in.file.Shape(); len(fs) > 0 && !slices.Equal(shape, fs) {
			return usagef("%s: the samples of %s have shape %s; give that shape or drop it", given, o.name(), tensor.FormatShape(fs))
		}
		if _, cols := in.file.Dims(); tensor.CheckShape(shape, cols) != nil {
			p := 1
			for _, s := range shape {
				p *= s
			}
			return usagef("%s holds %d values per sample, but the rows of %s have %d", given, p, o.name(), cols)
		}
		return nil
	}
	if err := applyShapeFlag(in.ds, shape, given, o.name()); err != nil {
		return err
	}
	if o.normalClass >= 0 {
		var err error
		if in.ds, err = rowsOfClass(in.ds, o.name(), o.normalClass); err != nil {
			return err
		}
	}
	if o.labeled && in.ds.Y == nil {
		return dataErr(fmt.Errorf("%s: --labeled needs labels, and the file has none", o.name()))
	}
	return nil
}

// fit fits d to the input and returns the seconds it took. The caller
// looks at ctx first: an error of a cancelled fit is its interruption.
func (o fitOptions) fit(ctx context.Context, d detector.Detector, in fitInput, bar *progressBar) (float64, error) {
	start := time.Now()
	// Beside the signals, as score's Score: a fit looks at ctx between
	// its steps, and a long step (gauss's covariance of 20,000 × 5,000
	// sparse rows) ignored SIGTERM for minutes.
	_, err := beside(ctx, func() (struct{}, error) {
		switch {
		case in.file != nil:
			desc, _ := detector.Describe(d)
			return struct{}{}, detector.FitSource(ctx, d, guardRows(d, in.file, o.maxMemory, o.method, desc.Params))
		case o.labeled:
			return struct{}{}, d.(detector.LabeledFitter).FitLabeled(ctx, in.ds.X, in.ds.Y)
		}
		return struct{}{}, d.Fit(ctx, in.ds.X)
	})
	bar.done()
	secs := time.Since(start).Seconds()
	switch {
	case err == nil:
		return secs, nil
	case in.file != nil:
		return secs, streamErr(o.name(), err)
	}
	return secs, paramOrDataErr(o.name(), err)
}

// save gives the fitted detector the data's column names and writes the
// model to --out, returning interrupted when a signal stops the writing.
func (o fitOptions) save(ctx context.Context, d detector.Detector, in fitInput, interrupted error, stderr io.Writer) error {
	// The data's column names go with the model, so that score and eval
	// can refuse data whose columns are others or in another order.
	_, ncols := in.dims()
	if names := in.columns(); len(names) == ncols {
		if err := detector.SetColumns(d, names); errors.Is(err, detector.ErrColumnsTooLong) {
			fmt.Fprintf(stderr, "anomaly: note: %s: %v: the model is saved without them, and score will not check the names of the data it scores\n", o.name(), err)
		} else if err != nil {
			return internalErr(fmt.Errorf("%s: %w", o.out, err))
		}
	}
	// The fit's scratch is garbage now; collect it before encoding the
	// model, so that the encoder's buffers reuse its memory instead of
	// growing the heap past the fit's peak (kernel PCA's default fit on
	// 5,000 rows of 784 features: peak RSS 722–742 MB without, 707 MB
	// with it).
	runtime.GC()
	out, err := createOutput(ctx, o.out, nil, o.stdin, o.data)
	if err != nil {
		return err
	}
	defer out.Abort()
	if err := detector.Save(out, d); err != nil {
		if ctx.Err() != nil { // a pipe's write stopped by the signal
			return interrupted
		}
		var pe *output.PathError
		if errors.As(err, &pe) { // it names the output already
			return internalErr(err)
		}
		return internalErr(fmt.Errorf("%s: %w", o.out, err))
	}
	if ctx.Err() != nil {
		return interrupted
	}
	return commitOutput(out)
}

// summary writes the fitted model's warning, if any, and the fit's
// one-line summary to stderr.
func (o fitOptions) summary(stderr io.Writer, d detector.Detector, in fitInput, secs float64) {
	if desc, _ := detector.Describe(d); desc.Warning != "" {
		fmt.Fprintf(stderr, "anomaly: warning: %s\n", desc.Warning)
	}
	nrows, ncols := in.dims()
	rows := fmt.Sprintf("%d rows", nrows)
	switch {
	case o.sample > 0 && o.sample < nrows:
		rows = fmt.Sprintf("a sample of %d of the %d rows", o.sample, nrows)
	case nrows == 1:
		rows = "1 row"
	}
	fmt.Fprintf(stderr, "%s: fitted %s × %d features of %s in %.3g s; threshold %.6g; wrote %s\n",
		o.method, rows, ncols, o.name(), secs, d.Threshold(), o.out)
}

// applyShapeFlag checks --shape (or --set shape, given as the user wrote
// it) against the data: a file that carries its
// own sample shape must have that one, and the shape's size must be the
// row length; on data without a shape it becomes the data's.
func applyShapeFlag(ds *dataset.Dataset, shape []int, given, path string) error {
	if shape == nil {
		return nil
	}
	if ds.Shape != nil {
		if !slices.Equal(ds.Shape, shape) {
			return usagef("%s: the samples of %s have shape %s; give that shape or drop it", given, path, tensor.FormatShape(ds.Shape))
		}
		return nil
	}
	p := 1
	for _, s := range shape {
		p *= s
	}
	if p != ds.Cols() {
		return usagef("%s holds %d values per sample, but the rows of %s have %d", given, p, path, ds.Cols())
	}
	ds.Shape = shape
	return nil
}

// fitParams gathers the method parameters from --set and the dedicated
// flags, and parses --shape for the loader.
func fitParams(o fitOptions, m detector.Method) (params map[string]string, shape []int, err error) {
	if err := checkNormalClass(o.normalClass); err != nil {
		return nil, nil, err
	}
	if o.normalClass >= 0 && o.labeled {
		return nil, nil, usagef("--normal-class and --labeled: give one")
	}
	if params, err = parseSet(o.sets); err != nil {
		return nil, nil, err
	}
	if o.hasContamination {
		err = addParam(params, "contamination", o.contamination, "--contamination")
	}
	if o.hasSeed && err == nil && m.Has("seed") {
		// A method with no random choice ignores --seed (the caller
		// notes it): a loop over methods with one --seed failed on every
		// deterministic one with "unknown parameter seed".
		err = addParam(params, "seed", strconv.FormatUint(o.seed, 10), "--seed")
	}
	if o.sample != 0 && err == nil {
		if o.sample < 0 {
			return nil, nil, usagef("--sample %d: give a number of rows ≥ 1 (0 fits on every row)", o.sample)
		}
		if !m.Has("sample") {
			return nil, nil, usagef("--sample: method %s cannot fit on a sample yet", m.Name)
		}
		err = addParam(params, "sample", strconv.Itoa(o.sample), "--sample")
		if o.hasSeed && err == nil {
			err = addParam(params, "sample_seed", strconv.FormatUint(o.seed, 10), "--seed")
		}
	}
	if o.shape != "" && err == nil {
		if shape, err = parseShape(o.shape); err != nil {
			return nil, nil, err
		}
		if !m.Has("shape") {
			return nil, nil, usagef("--shape: method %s takes no sample shape", m.Name)
		}
		err = addParam(params, "shape", o.shape, "--shape")
	}
	if err != nil {
		return nil, nil, err
	}
	if v, ok := params["shape"]; ok && shape == nil && m.Has("shape") {
		// --set shape=… is checked against the data as --shape is (a
		// shape that does not parse is the parameter layer's error).
		shape, _ = tensor.ParseShape(v)
	}
	return params, shape, nil
}

// parseShape reads a sample shape such as 24x51.
func parseShape(s string) ([]int, error) {
	shape, err := tensor.ParseShape(s)
	if err != nil {
		return nil, usagef("--shape %q: want positive integers separated by x, as in 24x51", s)
	}
	return shape, nil
}
