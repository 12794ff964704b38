//go:build !race

package kpca

const raceOn = false
