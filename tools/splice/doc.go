// Command splice replaces the text between two marker lines of a file with
// its standard input: "make results" uses it to put the table printed by
// "anomaly bench --format markdown" into docs/results.md between
// <!-- results:start --> and <!-- results:end -->, and "make bad-input"
// the bad-input table into docs/bad-input.md. The markers stay; the
// file is rewritten through a temporary file and a rename, so it is never
// left half-written. A missing or repeated marker is an error and leaves
// the file unchanged.
//
//	go run ./tools/splice -file docs/results.md < bench-out/results.md
package main
