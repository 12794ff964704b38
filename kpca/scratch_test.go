package kpca

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/eval"
)

func TestScratchTime(t *testing.T) {
	name := os.Getenv("DS")
	ds, err := dataset.Load(filepath.Join("..", "..", "shared", "data", "adbench", name+".npz"), dataset.Options{})
	if err != nil {
		t.Skip(err)
	}
	tr, te, _ := dataset.SplitADBench(ds, 1)
	p, _ := New(Config{})
	t0 := time.Now()
	if err := p.Fit(context.Background(), tr.X); err != nil {
		t.Fatal(err)
	}
	fit := time.Since(t0)
	s, _ := p.Score(nil, te.X)
	vals, ex := p.Eigenvalues()
	t.Logf("%s fit %v auc %.4f q=%d explained %.4f lam1 %.3g lamq %.3g", name, fit, eval.AUCROC(s, te.Y), len(vals), ex, vals[0], vals[len(vals)-1])
}
