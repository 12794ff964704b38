package bench_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kernelad/anomaly/bench"
)

// A prepared split (bench.Config.SplitDir) gives every task the rows Split gives
// it: the same outcome as the task run on the data set, and Run removes
// the files when the data set is done.
func TestPreparedSplits(t *testing.T) {
	dir := t.TempDir()
	var got []bench.Task
	runner := func(ctx context.Context, tk bench.Task, _ time.Duration) bench.Outcome {
		got = append(got, tk)
		if tk.Split == "" {
			return bench.Outcome{Err: "no prepared split"}
		}
		return bench.RunSplitTask(ctx, tk)
	}
	cfg := bench.Config{Methods: []string{"expose", "testnorm"}, Data: []string{bench.EmbeddedPrefix + "4_breastw"}, Seeds: []uint64{1, 2}, Runner: runner, SplitDir: dir}
	res, err := bench.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := bench.Open(bench.EmbeddedPrefix + "4_breastw")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		for _, tr := range c.Trials {
			if tr.Outcome.Err != "" {
				t.Fatalf("%s seed %d: %s", tr.Task.Method, tr.Task.Seed, tr.Outcome.Err)
			}
			want := bench.RunTask(context.Background(), ds, tr.Task)
			if tr.Outcome.AUC != want.AUC || tr.Outcome.TrainRows != want.TrainRows || tr.Outcome.TestAnomalies != want.TestAnomalies {
				t.Errorf("%s seed %d: prepared split AUC %v (%d train rows), data set %v (%d)", tr.Task.Method, tr.Task.Seed,
					tr.Outcome.AUC, tr.Outcome.TrainRows, want.AUC, want.TrainRows)
			}
		}
	}
	if len(got) != 4 || got[0].Split != got[2].Split || got[0].Split == got[1].Split {
		t.Errorf("tasks %v: want the two methods of a seed to share one split file", got)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("%d split files left behind", len(left))
	}
}
