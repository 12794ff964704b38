package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/kernelad/anomaly/internal/output"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes of the anomaly program.
const (
	ExitOK          = 0   // success
	ExitUsage       = 1   // bad flags or arguments, unknown method or parameter, parameter out of range
	ExitData        = 2   // bad input data or model file
	ExitInternal    = 3   // internal error, or output that cannot be written
	ExitInterrupted = 130 // stopped by SIGINT or SIGTERM (128 + SIGINT, as shells report it)
)

// exitError carries an exit code with the error a command failed with.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(err error) error { return &exitError{ExitUsage, err} }
func dataErr(err error) error  { return &exitError{ExitData, err} }
func internalErr(err error) error {
	return &exitError{ExitInternal, err}
}

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error { return usageErr(fmt.Errorf(format, args...)) }

// Run executes the anomaly program with args (without the program name),
// writing results to stdout and messages to stderr, and returns the exit
// code. Every failure is one line on stderr prefixed "anomaly: ". ctx
// bounds the whole run; fit additionally stops on SIGINT and SIGTERM.
// --data - reads os.Stdin.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return RunIO(ctx, args, os.Stdin, stdout, stderr)
}

// RunIO is Run with stdin as the standard input that --data - reads.
func RunIO(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "anomaly: internal error: %v\n", oneLine(fmt.Sprint(r)))
			code = ExitInternal
		}
	}()
	root := newRootCmd(stdout, stderr)
	// cobra writes help and usage text and drops the write errors: help
	// sent to a full disk (--help > /dev/full) said nothing and exited 0.
	help := &errWriter{w: stdout}
	root.SetOut(help)
	root.SetIn(stdin)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil && help.err != nil {
		err = internalErr(fmt.Errorf("writing to standard output: %w", output.Unwrap(help.err)))
	}
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(stderr, "anomaly: %s\n", oneLine(err.Error()))
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Errors that did not come through a command's run function are cobra's
	// own: unknown commands and flags, missing required flags.
	return ExitUsage
}

// strconvErr matches the strconv error that pflag appends to a numeric
// flag's message ("strconv.ParseUint: parsing "-1": invalid syntax").
var strconvErr = regexp.MustCompile(`strconv\.Parse(Uint|Int|Float)[0-9]*: parsing "(?:[^"\\]|\\.)*": (invalid syntax|value out of range)$`)

// flagMessage is a flag error's message with the strconv internals said
// in words: --seed -1 said `strconv.ParseUint: parsing "-1": invalid
// syntax`.
func flagMessage(err error) string {
	msg := err.Error()
	m := strconvErr.FindStringSubmatchIndex(msg)
	if m == nil {
		return msg
	}
	kind := map[string]string{"Uint": "a whole number ≥ 0", "Int": "a whole number", "Float": "a number"}[msg[m[2]:m[3]]]
	why := "want " + kind
	if msg[m[4]:m[5]] == "value out of range" {
		why = "out of range: want " + kind + " that fits 64 bits"
	}
	return msg[:m[0]] + why
}

// errWriter passes writes to w and keeps the first error.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.TrimSpace(s)), " ")
}

const rootLong = `anomaly fits kernel and tensor anomaly detectors to the rows of a data file,
scores new rows (higher = more anomalous) and evaluates scores against labels.

Data files are read by extension: .csv and .tsv (a header row; a "label" or
"y" column, or the one named by --label, holds 1 = anomaly, 0 = normal, -1
or empty = unlabeled), .npy, .npz (arrays X and y), LIBSVM text (.libsvm,
.svm, .svmlight, .txt; labels 1/0 as above, or +1/-1 by LIBSVM's one-class
convention: +1 normal, -1 anomaly) and .arff; any of them but .npz may be
gzipped (.csv.gz).

Parameters of a method are given with --set key=value, repeatable; "anomaly
methods" lists every method with its parameters and defaults.

Exit codes:
  0    success
  1    usage: bad flags or arguments, unknown method or parameter,
       parameter out of range
  2    bad data: a data file that is missing, unreadable, of an unknown
       format, ragged, non-numeric, holding NaN or Inf, empty or with the
       wrong feature count; a corrupt, truncated or other-version model
  3    internal error, or output that cannot be written
  130  interrupted (SIGINT or SIGTERM); no partial output is left behind

Every error is one line on stderr starting "anomaly: ", naming the file and,
where they apply, the row and column. Output files are written to a temporary
file in the same directory and renamed into place, so they are either
complete or absent.`

const rootExample = `  anomaly methods
  anomaly fit --method expose --data train.csv --out model.bin --set landmarks=1000 --seed 1
  anomaly score --model model.bin --data new.csv --out scores.csv
  anomaly eval --model model.bin --data test.csv --json`

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "anomaly",
		Short:         "Kernel and tensor anomaly detection",
		Long:          rootLong,
		Example:       rootExample,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	var twice *flagTwice
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if twice != nil {
			return usagef("%s: --%s is given twice (%q, then %q): give it once", c.CommandPath(), twice.name, twice.first, twice.second)
		}
		return usageErr(fmt.Errorf("%s: %s (see '%s --help')", c.CommandPath(), flagMessage(err), c.CommandPath()))
	})
	root.CompletionOptions.DisableDefaultCmd = true
	// bench, plot and export (DESIGN.md) join here.
	root.AddCommand(
		newMethodsCmd(stdout),
		newFitCmd(stderr),
		newScoreCmd(stdout, stderr),
		newEvalCmd(stdout, stderr),
		newBenchCmd(stdout, stderr),
		newBenchTaskCmd(stdout),
		newExportCmd(stderr),
		newPlotCmd(stderr),
	)
	onceFlags(root, &twice)
	return root
}

// flagTwice is a flag of one value given twice.
type flagTwice struct{ name, first, second string }

// onceValue is a flag value that refuses a second Set: pflag keeps the
// last of --out a.bin --out b.bin, so the user's a.bin was silently not
// written (and --data x --data y read only y).
type onceValue struct {
	pflag.Value
	name  string
	set   bool
	first string
	twice **flagTwice
}

func (v *onceValue) Set(s string) error {
	if v.set {
		*v.twice = &flagTwice{v.name, v.first, s}
		return errors.New("given twice")
	}
	v.set, v.first = true, s
	return v.Value.Set(s)
}

// onceFlags wraps every flag of c and its subcommands that takes one value
// (not a boolean, not a repeatable one as --set) in a onceValue reporting
// to *twice.
func onceFlags(c *cobra.Command, twice **flagTwice) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Value.(pflag.SliceValue); ok || f.Value.Type() == "bool" {
			return
		}
		f.Value = &onceValue{Value: f.Value, name: f.Name, twice: twice}
	})
	for _, sub := range c.Commands() {
		onceFlags(sub, twice)
	}
}

// runE adapts a command's run function: errors that carry no exit code are
// internal.
func runE(run func(ctx context.Context) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, _ []string) error {
		err := run(c.Context())
		var ee *exitError
		if err != nil && !errors.As(err, &ee) {
			err = internalErr(err)
		}
		return err
	}
}

// noArgs rejects positional arguments as a usage error.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments (got %q); data and models are given with flags", c.CommandPath(), args[0])
	}
	return nil
}

// runRequired is runE for a command with required flags: the first of
// flags that was not given is a usage error, reported before run is called.
func runRequired(flags []string, run func(ctx context.Context) error) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		for _, f := range flags {
			if !c.Flags().Changed(f) {
				return usagef("%s: flag --%s is required", c.CommandPath(), f)
			}
			if c.Flags().Lookup(f).Value.String() == "" {
				// --out "" said "anomaly: : cannot write output".
				return usagef("%s: flag --%s is empty: give a file name", c.CommandPath(), f)
			}
		}
		return runE(run)(c, args)
	}
}
