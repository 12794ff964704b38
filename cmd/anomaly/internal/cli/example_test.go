package cli_test

import (
	"context"
	"fmt"
	"os"

	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
)

// Run returns the exit code; errors are one line on stderr (here stdout, so
// the example shows it).
func ExampleRun() {
	code := cli.Run(context.Background(), []string{"fit", "--method", "expose", "--data", "train.csv"}, os.Stdout, os.Stdout)
	fmt.Println("exit", code)
	// Output:
	// anomaly: anomaly fit: flag --out is required
	// exit 1
}
