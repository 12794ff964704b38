package main

import "fmt"

func Example() {
	doc := "# Title\n<!-- results:start -->\nold table\n<!-- results:end -->\nfooter\n"
	out, err := splice([]byte(doc), []byte("<!-- results:start -->"), []byte("<!-- results:end -->"), []byte("| new | table |\n"))
	fmt.Print(string(out), err)
	// Output:
	// # Title
	// <!-- results:start -->
	// | new | table |
	// <!-- results:end -->
	// footer
	// <nil>
}
