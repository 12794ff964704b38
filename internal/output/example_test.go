package output_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kernelad/anomaly/internal/output"
)

// Writing a file atomically, and refusing an output that is an input.
func Example() {
	dir, _ := os.MkdirTemp("", "output")
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data.csv")
	os.WriteFile(data, []byte("a,b\n1,2\n"), 0o644)

	f, err := output.Create(filepath.Join(dir, "scores.csv"), output.Options{Inputs: []string{data}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Abort() // removes the temporary file unless Commit ran
	f.WriteString("score\n0.5\n")
	fmt.Println("commit:", f.Commit())

	_, err = output.Create(data, output.Options{Inputs: []string{data}})
	var same *output.SameFileError
	fmt.Println("output onto its input refused:", errors.As(err, &same))
	entries, _ := os.ReadDir(dir)
	fmt.Println("files:", len(entries))
	// Output:
	// commit: <nil>
	// output onto its input refused: true
	// files: 2
}
