package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/kernelad/anomaly/internal/output"
)

func main() {
	file := flag.String("file", "docs/results.md", "file to update")
	start := flag.String("start", "<!-- results:start -->", "line before the replaced text")
	end := flag.String("end", "<!-- results:end -->", "line after the replaced text")
	flag.Parse()
	if err := run(*file, *start, *end, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "splice:", err)
		os.Exit(1)
	}
}

func run(path, start, end string, in io.Reader) error {
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	out, err := splice(old, []byte(start), []byte(end), body)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// An in-place update: the file is its own input by design, replaced
	// atomically with its mode kept.
	return output.WriteFile(path, out, output.Options{})
}

// splice returns doc with the lines between the start and end marker lines
// replaced by body (which gets a final newline if it lacks one).
func splice(doc, start, end, body []byte) ([]byte, error) {
	i := bytes.Index(doc, start)
	if i < 0 || bytes.Count(doc, start) != 1 {
		return nil, fmt.Errorf("want exactly one %q marker", start)
	}
	j := bytes.Index(doc, end)
	if j < 0 || bytes.Count(doc, end) != 1 {
		return nil, fmt.Errorf("want exactly one %q marker", end)
	}
	if j < i {
		return nil, fmt.Errorf("%q comes before %q", end, start)
	}
	head := doc[:i+len(start)]
	if k := bytes.IndexByte(doc[i:j], '\n'); k >= 0 {
		head = doc[:i+k+1] // keep the rest of the start marker's line
	} else {
		head = append(append([]byte{}, head...), '\n')
	}
	var b bytes.Buffer
	b.Write(head)
	b.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.Write(doc[j:])
	return b.Bytes(), nil
}
