// Package all registers every detection method of the module with the
// detector registry: import it for its side effect,
//
//	import _ "github.com/kernelad/anomaly/detector/all"
//
// and detector.New, detector.Names and detector.Load know expose, gauss,
// iforest, kde, kpca, ocsvm, the tensor methods (1stm, r1stm, r1svm) and
// svdd. Each method package registers itself in its init function; this
// package is the one list of them, shared by the command line and the
// golearn adapter. Add a method package here when it lands.
package all
