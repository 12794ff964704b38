// Package setflag reads the repeated --set key=value flags with which the
// anomaly command (package cmd/anomaly/internal/cli) and the anomaly-beam command (the
// Beam module) take method parameters, so that both accept and refuse the
// same flags with the same messages. The map it returns is what
// detector.New and the methods' parameter sets (package param) take.
package setflag
