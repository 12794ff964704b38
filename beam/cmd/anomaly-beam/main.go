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
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	"github.com/kernelad/anomaly/beam/exposebeam"
	"github.com/kernelad/anomaly/internal/cli/setflag"

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
	if err := run(context.Background(), cmd); err != nil {
		fmt.Fprintln(os.Stderr, "anomaly-beam:", err)
		os.Exit(1)
	}
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
			return err
		}
		for _, f := range []struct{ key, val string }{{"seed", *seed}, {"contamination", *cont}} {
			if f.val == "" {
				continue
			}
			if err := setflag.Add(params, f.key, f.val, "--"+f.key); err != nil {
				return err
			}
		}
		if *input == "" || *out == "" {
			return fmt.Errorf("fit needs --input and --out\n%s", usage)
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
			return fmt.Errorf("score needs --model, --input and --out\n%s", usage)
		}
		if len(sets) > 0 {
			return fmt.Errorf("score takes no --set: the parameters are in the model")
		}
		files, err := exposebeam.Score(ctx, exposebeam.ScoreOptions{Runner: runner, Model: *model, Input: *input, Out: *out, Label: *label, Chunk: *chunk})
		if err != nil {
			return err
		}
		fmt.Printf("scores in %s … (%d files)\n", files[0], len(files))
		return nil
	case "":
		return fmt.Errorf("no command\n%s", usage)
	}
	return fmt.Errorf("unknown command %q\n%s", cmd, usage)
}
