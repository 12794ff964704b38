//go:build race

package kpca

// raceOn reports a -race build, where gonum's pure-Go eigensolvers run
// many times slower; a few redundant heavy cases are skipped then.
const raceOn = true
