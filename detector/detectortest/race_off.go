//go:build !race

package detectortest

const raceEnabled = false
