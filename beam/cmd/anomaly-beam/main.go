// Command anomaly-beam fits and applies EXPoSE models on Apache Beam.
//
//	anomaly-beam fit   --runner direct|prism|dataflow|flink --input 'GLOB' --out MODEL [--seed N] [--set k=v]...
//	anomaly-beam score --runner ... --model MODEL --input 'GLOB' --out PREFIX
//
// fit takes the parameters of 'anomaly fit --method expose' (--set seed=3
// --set features=2000 ...) and writes a model file that 'anomaly score'
// reads. score writes PREFIX-0000i-of-0000N.csv, one per input shard, with
// the columns id,score,anomaly. Every other flag is Beam's (--project,
// --region, --staging_location, --endpoint, --environment_type, ...); see
// beam/README.md.
//
// As the core command: an output that is an input is refused before any
// work, outputs are made final only when the pipeline has succeeded,
// SIGINT and SIGTERM stop the command (exit 130) leaving the old outputs,
// and an error is one line; exit codes 0 ok, 1 usage, 2 bad data, 3
// output or internal, 130 interrupted.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/kernelad/anomaly/beam/exposebeam"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/output"
	"github.com/kernelad/anomaly/internal/setflag"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/direct"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
)

type setFlag []string

func (s *setFlag) String() string     { return strings.Join(*s, " ") }
func (s *setFlag) Set(v string) error { *s = append(*s, v); return nil }

// Flags live on the default flag set beside Beam's own, so that a worker
// started by a cluster runner (with Beam's flags only) parses its arguments.
var (
	input = flag.String("input", "", "glob of input shards (CSV with a header row, .npy, ...)")
	out   = flag.String("out", "", "fit: model file to write; score: prefix of the score files")
	model = flag.String("model", "", "score: model file written by 'anomaly fit' or 'anomaly-beam fit'")
	label = flag.String("label", "", "name of a label column to drop from the shards")
	chunk = flag.Int("chunk", 0, "score: rows per block (default 2048; fit uses the chunk parameter)")
	seed  = flag.String("seed", "", "fit: the seed parameter (as --seed of 'anomaly fit'; same as --set seed=N)")
	cont  = flag.String("contamination", "", "fit: the contamination parameter (same as --set contamination=c)")
	sets  setFlag
)

func init() {
	flag.Var(&sets, "set", "expose parameter key=value (repeatable), as for 'anomaly fit --method expose'")
}

const usage = `usage:
  anomaly-beam fit   --runner direct|prism|dataflow|flink --input 'GLOB' --out MODEL [--set k=v]...
  anomaly-beam score --runner direct|prism|dataflow|flink --model MODEL --input 'GLOB' --out PREFIX
`

func main() {
	cmd := ""
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		cmd = os.Args[1]
		os.Args = append(os.Args[:1], os.Args[2:]...)
	}
	flag.Parse()
	beam.Init() // a cluster worker runs its harness here and exits
	// From here on SIGINT, SIGTERM and SIGHUP cancel ctx instead of killing the
	// process: the staging files are removed and the old outputs stay.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, cmd); err != nil {
		code, msg := exitCode(ctx, cmd, err) // before stop, which cancels ctx
		fmt.Fprintln(os.Stderr, "anomaly-beam:", msg)
		os.Exit(code)
	}
}

// Exit codes, as the core command's (DESIGN.md).
const (
	exitUsage       = 1
	exitData        = 2
	exitInternal    = 3
	exitInterrupted = 130
)

// usageError is a mistake in the command line.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// exitCode returns the exit code of err and its message, one line: a
// pipeline's error is Beam's plan dump with the cause at the end, and
// only the cause is of use to the user.
func exitCode(ctx context.Context, cmd string, err error) (int, string) {
	if ctx.Err() != nil {
		what := "no model written to " + *out
		if cmd == "score" {
			what = "no scores written to " + *out + "-*.csv"
		}
		return exitInterrupted, fmt.Sprintf("%s interrupted; %s", cmd, what)
	}
	var (
		ue usageError
		se *output.SameFileError
		pe *output.PathError
		ce *detector.ColumnsError
		ee *detector.EmptyError
	)
	switch {
	case errors.As(err, &ue):
		return exitUsage, err.Error()
	case errors.As(err, &se):
		return exitUsage, se.Error()
	case errors.As(err, &pe):
		return exitInternal, pe.Error()
	case errors.As(err, &ce):
		return exitData, ce.Error()
	case errors.As(err, &ee):
		return exitData, ee.Error()
	}
	msg, data := exposebeam.Cause(err)
	if data {
		return exitData, msg
	}
	return exitInternal, msg
}

func run(ctx context.Context, cmd string) error {
	runner := *runners.Runner
	if runner == "" {
		runner = "direct"
	}
	switch cmd {
	case "fit":
		params, err := setflag.Parse(sets)
		if err != nil {
			return usageError{err}
		}
		for _, f := range []struct{ key, val string }{{"seed", *seed}, {"contamination", *cont}} {
			if f.val == "" {
				continue
			}
			if err := setflag.Add(params, f.key, f.val, "--"+f.key); err != nil {
				return usageError{err}
			}
		}
		if *input == "" || *out == "" {
			return usageError{fmt.Errorf("fit needs --input and --out\n%s", usage)}
		}
		rep, err := exposebeam.Fit(ctx, exposebeam.FitOptions{Runner: runner, Input: *input, Out: *out, Params: params, Label: *label})
		if err != nil {
			return err
		}
		fmt.Printf("fitted expose on %d rows × %d columns from %d shards (gamma %g, threshold from %d rows, %d merges of partial sums); model in %s\n",
			rep.Rows, rep.Cols, rep.Shards, rep.Gamma, rep.Threshold, rep.Merges, *out)
		return nil
	case "score":
		if *input == "" || *out == "" || *model == "" {
			return usageError{fmt.Errorf("score needs --model, --input and --out\n%s", usage)}
		}
		if len(sets) > 0 {
			return usageError{fmt.Errorf("score takes no --set: the parameters are in the model")}
		}
		files, err := exposebeam.Score(ctx, exposebeam.ScoreOptions{Runner: runner, Model: *model, Input: *input, Out: *out, Label: *label, Chunk: *chunk})
		if err != nil {
			return err
		}
		fmt.Printf("scores in %s … (%d files)\n", files[0], len(files))
		return nil
	case "":
		return usageError{fmt.Errorf("no command\n%s", usage)}
	}
	return usageError{fmt.Errorf("unknown command %q\n%s", cmd, usage)}
}
