package main

// The detection methods of the binary: each package registers itself with
// the detector registry in its init function. Add a method package here when
// it lands.
import (
	_ "github.com/kernelad/anomaly/expose"
	_ "github.com/kernelad/anomaly/gauss"
	_ "github.com/kernelad/anomaly/iforest"
	_ "github.com/kernelad/anomaly/kde"
	_ "github.com/kernelad/anomaly/kpca"
	_ "github.com/kernelad/anomaly/ocsvm"
	_ "github.com/kernelad/anomaly/stm"
	_ "github.com/kernelad/anomaly/svdd"
)
