package exposebeam_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kernelad/anomaly/beam/exposebeam"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/expose"
	"gonum.org/v1/gonum/mat"
)

// Fit two CSV shards on the direct runner, then load the model as
// 'anomaly score' does and score a point near the data and one far away.
func ExampleFit() {
	dir, _ := os.MkdirTemp("", "exposebeam")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "a.csv"), []byte("a,b\n0,0\n0.1,0\n0,0.1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.csv"), []byte("a,b\n0.1,0.1\n0.05,0.05\n"), 0o644)

	model := filepath.Join(dir, "model")
	rep, err := exposebeam.Fit(context.Background(), exposebeam.FitOptions{
		Runner: "direct",
		Input:  filepath.Join(dir, "*.csv"),
		Out:    model,
		Params: map[string]string{"seed": "1", "map": "rff", "features": "500", "gamma": "1"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Shards, "shards,", rep.Rows, "rows")

	f, _ := os.Open(model)
	defer f.Close()
	d, err := detector.Load(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	near := d.(*expose.EXPoSE)
	s, _ := near.Score(nil, matrix([]float64{0.05, 0.05, 3, 3}))
	fmt.Println("far point scores higher:", s[1] > s[0])
	// Output:
	// 2 shards, 5 rows
	// far point scores higher: true
}

func matrix(v []float64) *mat.Dense { return mat.NewDense(len(v)/2, 2, v) }
