package cli

import "github.com/kernelad/anomaly/bench"

func benchPlots(res *bench.Result, dir string) error { return nil }
