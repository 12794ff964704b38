package exposebeam

import (
	"context"
	"path/filepath"
	"testing"
)

// BenchmarkFitHTTP fits EXPoSE (seed 42, D = 2000) on 16_http in 8 CSV
// shards: in process (the core fit on the concatenated rows, already in
// memory) and through the Beam pipelines (two passes reading the CSV
// shards) on the direct runner and prism. rows/s is training rows per
// second of the whole fit. Every 7th row unless ANOMALY_LONG=1; run with
// -benchtime 1x -cpu 2.
func BenchmarkFitHTTP(b *testing.B) {
	X := httpData(b)
	n, _ := X.Dims()
	dir := b.TempDir()
	glob := writeShards(b, dir, X, 8)
	params := map[string]string{"seed": "42"}
	b.Run("inprocess", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			fitInProcess(b, X, params)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	for _, runner := range []string{"direct", "prism"} {
		b.Run(runner, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Fit(context.Background(), FitOptions{Runner: runner, Input: glob, Out: filepath.Join(dir, "m"), Params: params}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
