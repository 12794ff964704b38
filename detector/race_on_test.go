//go:build race

package detector_test

// raceEnabled says the race detector is on: it allocates beside the
// program, so the allocation bounds are checked without it (make
// test-memory).
const raceEnabled = true
