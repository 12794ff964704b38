//go:build race

package kde

// raceOn reports a -race build; a few redundant heavy cases are skipped then.
const raceOn = true
