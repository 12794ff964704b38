package output_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kernelad/anomaly/internal/output"
)

// A file written atomically, then refused as the output of a command that
// reads it.
func Example() {
	path := filepath.Join(os.TempDir(), fmt.Sprintf("output-example-%d.csv", os.Getpid()))
	defer os.Remove(path)
	f, err := output.Create(path, output.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Abort() // removes the temporary file unless Commit ran
	f.WriteString("score\n0.5\n")
	fmt.Println("commit:", f.Commit())

	var same *output.SameFileError
	_, err = output.Create(path, output.Options{Inputs: []string{path}})
	fmt.Println("output onto its input refused:", errors.As(err, &same))
	b, _ := os.ReadFile(path)
	fmt.Printf("%q\n", b)
	// Output:
	// commit: <nil>
	// output onto its input refused: true
	// "score\n0.5\n"
}
