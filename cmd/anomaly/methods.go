package main

// The detection methods of the binary: detector/all imports every method
// package, each of which registers itself with the detector registry.
import _ "github.com/kernelad/anomaly/detector/all"
