// Command anomaly fits, applies and evaluates the anomaly detectors of
// github.com/kernelad/anomaly. Run "anomaly --help" for the commands and
// exit codes.
package main

import (
	"context"
	"os"

	"github.com/kernelad/anomaly/internal/cli"
)

func main() {
	os.Exit(cli.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
