package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
)

func main() {
	// A closed pipe on standard output (anomaly score … | head) makes
	// writes fail with EPIPE, reported as one line with exit 3, instead of
	// killing the process with SIGPIPE mid-write.
	signal.Ignore(syscall.SIGPIPE)
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
