package main

// The detection methods of the binary: each package registers itself with
// the detector registry in its init function.
import (
	_ "github.com/kernelad/anomaly/expose"
)
