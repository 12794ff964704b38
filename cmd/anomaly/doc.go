// Command anomaly fits, applies and evaluates the anomaly detectors of
// github.com/kernelad/anomaly. Run "anomaly --help" for the commands and
// exit codes.
package main
