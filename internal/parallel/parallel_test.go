package parallel

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
)

func TestForBlocksRunsEachBlockOnce(t *testing.T) {
	for _, nb := range []int{0, 1, 2, 7, 1000} {
		counts := make([]int32, nb)
		var workers atomic.Int32
		ForBlocks(nb, func() func(int) {
			workers.Add(1)
			return func(b int) { atomic.AddInt32(&counts[b], 1) }
		})
		for b, c := range counts {
			if c != 1 {
				t.Fatalf("nb=%d: block %d ran %d times", nb, b, c)
			}
		}
		if nb == 0 && workers.Load() != 0 {
			t.Fatal("a worker was built for no blocks")
		}
	}
}

// Square the numbers 0..9 in blocks of 2, each block writing its own slots.
func ExampleForBlocks() {
	out := make([]int, 10)
	ForBlocks(5, func() func(int) {
		return func(b int) {
			for i := 2 * b; i < 2*b+2; i++ {
				out[i] = i * i
			}
		}
	})
	fmt.Println(out)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

func TestForRangesCoversEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 5, 511, 513, 10000} {
		counts := make([]int32, n)
		ForRanges(n, 256, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				atomic.AddInt32(&counts[i], 1)
			}
		})
		for i, c := range counts {
			if c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

// A worker's panic reaches the caller's goroutine as a *WorkerPanic,
// where it can be recovered (in its own goroutine it ended the process).
func TestWorkerPanicReachesCaller(t *testing.T) {
	for name, run := range map[string]func(){
		"ForBlocks": func() {
			ForBlocks(64, func() func(int) {
				return func(b int) {
					if b == 37 {
						panic("block 37")
					}
				}
			})
		},
		"ForRanges": func() {
			ForRanges(1000, 1, func(lo, hi int) {
				if lo > 0 {
					panic("range")
				}
			})
		},
	} {
		func() {
			defer func() {
				r := recover()
				if _, ok := r.(*WorkerPanic); !ok && runtime.GOMAXPROCS(0) > 1 {
					t.Errorf("%s: recovered %v (%T), want a *WorkerPanic", name, r, r)
				}
			}()
			run()
			t.Errorf("%s returned without panicking", name)
		}()
	}
}
