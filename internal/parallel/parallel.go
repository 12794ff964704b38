package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ForBlocks runs blocks 0..nb−1 on min(GOMAXPROCS, nb) workers, each of
// which first calls newWorker to get its own block function (and scratch).
// It returns when every block is done.
func ForBlocks(nb int, newWorker func() func(b int)) {
	w := min(runtime.GOMAXPROCS(0), nb)
	if w <= 1 {
		if nb > 0 {
			f := newWorker()
			for b := 0; b < nb; b++ {
				f(b)
			}
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := newWorker()
			for {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				f(b)
			}
		}()
	}
	wg.Wait()
}
