// Package parallel runs independent blocks of work on all cores (the one
// worker pool the kernel and random-feature layers share). The loops that
// take a context stop handing out blocks once it is done; nothing here
// runs a call in the background (the Cancellable wrapper that let a fit
// return while a context-free call went on computing is gone: every long
// step now takes the context itself).
//
// Blocks are numbered 0..nb−1 and handed out in increasing order from a
// shared counter to min(GOMAXPROCS, nb) workers; each worker first builds
// its own block function (and with it its own scratch memory), so blocks
// never share buffers. Results must be written to disjoint places by block
// index; the order in which blocks finish is not defined.
package parallel
