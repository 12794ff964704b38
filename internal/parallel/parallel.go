package parallel

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// ForBlocks runs blocks 0..nb−1 on min(GOMAXPROCS, nb) workers, each of
// which first calls newWorker to get its own block function (and scratch).
// It returns when every block is done.
func ForBlocks(nb int, newWorker func() func(b int)) {
	_ = ForBlocksContext(context.Background(), nb, newWorker)
}

// ForBlocksContext is ForBlocks that stops handing out blocks once ctx is
// done: every worker finishes the block it is on and returns, so when
// ForBlocksContext returns ctx.Err() no goroutine it started is still
// working. Blocks not started are left undone.
func ForBlocksContext(ctx context.Context, nb int, newWorker func() func(b int)) error {
	return ForBlocksProgress(ctx, nb, newWorker, nil)
}

// ForBlocksProgress is ForBlocksContext that also reports how many blocks
// are done: progress(done, nb) is called on the calling goroutine about
// every 100 ms while the workers run and once at the end (not at all when
// progress is nil).
func ForBlocksProgress(ctx context.Context, nb int, newWorker func() func(b int), progress func(done, total int)) error {
	w := min(runtime.GOMAXPROCS(0), nb)
	if w <= 1 {
		if nb > 0 {
			f := newWorker()
			last := time.Now()
			for b := 0; b < nb; b++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				f(b)
				if progress != nil && (b == nb-1 || time.Since(last) >= progressEvery) {
					progress(b+1, nb)
					last = time.Now()
				}
			}
		}
		return ctx.Err()
	}
	var next, done atomic.Int64
	var wg sync.WaitGroup
	var fail failure
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer fail.capture()
			f := newWorker()
			for ctx.Err() == nil && !fail.failed() {
				b := int(next.Add(1) - 1)
				if b >= nb {
					return
				}
				f(b)
				done.Add(1)
			}
		}()
	}
	if progress != nil {
		finished := make(chan struct{})
		go func() { wg.Wait(); close(finished) }()
		tick := time.NewTicker(progressEvery)
	wait:
		for {
			select {
			case <-finished:
				break wait
			case <-tick.C:
				progress(int(done.Load()), nb)
			}
		}
		tick.Stop()
		fail.rethrow()
		progress(int(done.Load()), nb)
	}
	wg.Wait()
	fail.rethrow()
	if int(next.Load()) < nb {
		return ctx.Err()
	}
	return nil
}

// progressEvery is how often ForBlocksProgress reports.
const progressEvery = 100 * time.Millisecond

// ForRanges splits 0..n−1 into one contiguous range per worker, at most
// GOMAXPROCS workers and at least minPer items each (one range below
// that), and calls f on each range concurrently, returning when all are
// done. f owns its range (and its scratch).
func ForRanges(n, minPer int, f func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), max(1, n/max(minPer, 1)))
	if w <= 1 {
		if n > 0 {
			f(0, n)
		}
		return
	}
	chunk := (n + w - 1) / w
	var wg sync.WaitGroup
	var fail failure
	for lo := 0; lo < n; lo += chunk {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			defer fail.capture()
			f(lo, hi)
		}(lo, min(lo+chunk, n))
	}
	wg.Wait()
	fail.rethrow()
}

// WorkerPanic is what a ForBlocks or ForRanges call panics with on its
// caller's goroutine when one of its workers panicked: a panic in a
// goroutine of its own ends the process, whatever the caller recovers, so
// the workers recover it and the call hands it on, where the caller (a
// detector's Score) may turn it into an error.
type WorkerPanic struct {
	Value any
	Stack []byte // the worker's stack when it panicked
}

func (p *WorkerPanic) Error() string { return fmt.Sprintf("panic in a worker goroutine: %v", p.Value) }

// failure holds the first panic of a call's workers.
type failure struct{ p atomic.Pointer[WorkerPanic] }

// capture recovers a worker's panic (deferred in the worker).
func (f *failure) capture() {
	if r := recover(); r != nil {
		f.p.CompareAndSwap(nil, &WorkerPanic{Value: r, Stack: debug.Stack()})
	}
}

func (f *failure) failed() bool { return f.p.Load() != nil }

// rethrow panics on the calling goroutine with the workers' first panic,
// if any.
func (f *failure) rethrow() {
	if p := f.p.Load(); p != nil {
		panic(p)
	}
}
