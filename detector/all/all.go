package all

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
