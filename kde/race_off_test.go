//go:build !race

package kde

const raceOn = false
