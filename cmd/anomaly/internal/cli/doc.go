// Package cli holds the commands of the anomaly program: flags, files and
// printing around the library, no algorithm. cmd/anomaly's main calls Run.
//
// Each command is built by a new…Cmd function whose handler (the cobra
// RunE) only binds the flags to the command's options struct (fitOptions,
// scoreOptions, …) and calls one run function with it: runFit, runScore,
// runEval, runExport, runBench, runCurves, runMap, runSGD, runCPALS. A run
// function takes no cobra type; it reads as the command's steps (for fit:
// check the flags and the output, open the data, build the detector
// within the memory budget, fit, save), each step a function of its own.
// Errors carry the exit code (usageErr, dataErr, internalErr, an
// interruption's 130), which Run turns into the one-line message and the
// process's exit code.
//
// The package lives under cmd/anomaly/internal so that only the anomaly
// command imports it: the packages under the repository's internal/ are
// foundations that import no method, no detector and no bench.
package cli
