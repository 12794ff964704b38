package iforest

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/kernelad/anomaly/internal/testmat"
)

// BenchmarkScore times scoring rows with a forest of the default 100
// trees fitted on 20,000 rows of 10 standard-normal values, over a grid
// of row counts (the tree walks dominate: a walk per row and tree).
func BenchmarkScore(b *testing.B) {
	X := testmat.NormalSeed(20000, 10, 1)
	f, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	if err := f.Fit(context.Background(), X); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10000, 100000} {
		Q := testmat.NormalSeed(n, 10, 2)
		dst := make([]float64, n)
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := f.Score(dst, Q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// pathLength is the walk of one row down tree t, a branch a level, that
// walkRows replaced: the depth of x's leaf plus c(leaf size).
func (m *model) pathLength(t []node, x []float64) float64 {
	i := int32(0)
	for t[i].Left >= 0 {
		if x[t[i].Feature] <= t[i].Value {
			i = t[i].Left
		} else {
			i = t[i].Right
		}
	}
	return m.leafPath(&t[i])
}

// walkRows reaches the leaf pathLength reaches, for every tree of a
// fitted forest and rows that hold ordinary values, values equal to the
// trees' split values, NaN and ±Inf: the two give the same path length
// bit for bit.
func TestWalkRowsEqualsPathLength(t *testing.T) {
	X := testmat.NormalSeed(2000, 6, 3)
	f, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Fit(context.Background(), X); err != nil {
		t.Fatal(err)
	}
	m, _ := f.Model()
	Q := testmat.NormalSeed(300, 6, 4)
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0}
	for i := range 300 {
		row := Q.RawRowView(i)
		switch i % 4 {
		case 1: // a split value of the first tree, in its column
			nd := m.trees[0][i%len(m.trees[0])]
			if nd.Left >= 0 {
				row[nd.Feature] = nd.Value
			}
		case 2:
			row[i%6] = specials[(i/4)%len(specials)]
		}
	}
	rows := make([][]float64, 300)
	for i := range rows {
		rows[i] = Q.RawRowView(i)
	}
	leaf := make([]int32, len(rows))
	for k, tr := range m.trees {
		m.walks[k].walkRows(rows, leaf)
		for i, x := range rows {
			if got, want := m.leafPath(&tr[leaf[i]]), m.pathLength(tr, x); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("tree %d, row %d: walk %v, pathLength %v", k, i, got, want)
			}
		}
	}
}
