//go:build !race

package detector_test

const raceEnabled = false
