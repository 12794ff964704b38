//go:build race

package detectortest

// raceEnabled says the race detector is on: its shadow memory grows the
// resident set with every allocation and its slower collector lets more
// garbage float, so the Memory check does not run (make test runs it
// without -race, see the Makefile).
const raceEnabled = true
