package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
)

// A session with the binary's commands: fit EXPoSE on a labelled CSV file
// (the label column is ignored by fit), then evaluate it on the same file.
// Normal rows are a Gaussian cloud, anomalies sit far out.
func Example() {
	dir, _ := os.MkdirTemp("", "anomaly-example")
	defer os.RemoveAll(dir)
	rng := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	b.WriteString("x1,x2,label\n")
	for i := 0; i < 300; i++ {
		if i%30 == 0 {
			fmt.Fprintf(&b, "%g,%g,1\n", 6+rng.NormFloat64(), -6+rng.NormFloat64())
		} else {
			fmt.Fprintf(&b, "%g,%g,0\n", rng.NormFloat64(), rng.NormFloat64())
		}
	}
	data, model := filepath.Join(dir, "train.csv"), filepath.Join(dir, "m.bin")
	os.WriteFile(data, []byte(b.String()), 0o644)
	ctx := context.Background()
	fmt.Println("fit:", cli.Run(ctx, []string{"fit", "--method", "expose", "--data", data, "--out", model, "--seed", "1"}, io.Discard, io.Discard))
	var out bytes.Buffer
	code := cli.Run(ctx, []string{"eval", "--model", model, "--data", data, "--json"}, &out, os.Stdout)
	var r struct {
		AUC       float64 `json:"auc_roc"`
		N         int     `json:"n"`
		Anomalies int     `json:"anomalies"`
		Flagged   int     `json:"flagged"`
	}
	json.Unmarshal(out.Bytes(), &r)
	fmt.Printf("eval: %d, auc_roc %.3f, n %d, anomalies %d, flagged %d\n", code, r.AUC, r.N, r.Anomalies, r.Flagged)
	// Output:
	// fit: 0
	// eval: 0, auc_roc 0.992, n 300, anomalies 10, flagged 30
}
