package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"
	"time"

	"github.com/kernelad/anomaly/bench"
)

// workerReply is what "bench-task --serve" writes after each task: the
// outcome, and Last when the child exits after it (where its peak RSS
// cannot be reset, every task needs a fresh process).
type workerReply struct {
	Outcome bench.Outcome `json:"outcome"`
	Last    bool          `json:"last,omitempty"`
}

// serveTasks is the loop of "bench-task --serve": a task (JSON) from in,
// its reply to out, until in ends. Before each task the freed heap goes
// back to the system and the peak RSS is reset, so the reported peak is
// that task's: the process's resident size when the task starts (program,
// runtime) plus what the task adds, as a fresh process per task would
// measure it.
func serveTasks(ctx context.Context, in io.Reader, out io.Writer) error {
	dec, enc := json.NewDecoder(in), json.NewEncoder(out)
	for first := true; ; first = false {
		var t bench.Task
		if err := dec.Decode(&t); err == io.EOF {
			return nil
		} else if err != nil {
			return usagef("bench-task: reading the task: %v", err)
		}
		if t.MaxBytes > 0 {
			// The soft limit fit and score set from their budget: without
			// it the child's heap grew past the task's budget (1.22×).
			setSoftLimit(t.MaxBytes)
		}
		debug.FreeOSMemory() // a collection, then the freed heap back to the system
		reset := resetPeakRSS()
		o := runBenchTask(ctx, t)
		if rss := selfPeakRSS(); rss > 0 && (reset || first) {
			o.PeakBytes, o.Memory = rss, "rss"
		}
		if err := enc.Encode(workerReply{Outcome: o, Last: !reset}); err != nil {
			return internalErr(err)
		}
		if !reset {
			return nil
		}
	}
}

// runBenchTask runs one task in this process: from its prepared split when
// it has one, else from the data set.
func runBenchTask(ctx context.Context, t bench.Task) bench.Outcome {
	if t.Split != "" {
		return bench.RunSplitTask(ctx, t)
	}
	ds, err := bench.OpenWithin(t.Data, t.MaxBytes)
	if err != nil {
		return bench.Outcome{Err: err.Error(), AUC: math.NaN(), AP: math.NaN(), DataErr: true}
	}
	return bench.RunTask(ctx, ds, t)
}

// workerRunner runs the tasks in a long-lived child, "exe bench-task
// --serve", instead of one process per task: the program's start (runtime,
// method registry, page faults of a fresh heap) is paid once, not 180 times
// for the reference suite. The child resets its peak RSS before each task,
// so memory stays a per-task figure. A task over the timeout, a child that
// dies and ctx cancelled each cost the child: it is killed, and the next
// task starts another. close stops the child.
func workerRunner(exe string) (run bench.Runner, close func()) {
	var (
		mu sync.Mutex
		w  *worker
	)
	stop := func() {
		if w != nil {
			w.kill()
			w = nil
		}
	}
	run = func(ctx context.Context, t bench.Task, timeout time.Duration) bench.Outcome {
		mu.Lock()
		defer mu.Unlock()
		if w == nil {
			var err error
			if w, err = startWorker(exe); err != nil {
				return bench.Outcome{Err: err.Error(), AUC: math.NaN(), AP: math.NaN()}
			}
		}
		if err := w.enc.Encode(t); err != nil {
			msg := w.failure(err)
			stop()
			return bench.Outcome{Err: msg, AUC: math.NaN(), AP: math.NaN()}
		}
		var expire <-chan time.Time
		if timeout > 0 {
			tm := time.NewTimer(timeout)
			defer tm.Stop()
			expire = tm.C
		}
		select {
		case r := <-w.replies:
			if r.err != nil {
				msg := w.failure(r.err)
				stop()
				return bench.Outcome{Err: msg, AUC: math.NaN(), AP: math.NaN()}
			}
			o := r.reply.Outcome
			if r.reply.Last {
				ps := w.wait()
				w = nil
				if o.Memory != "rss" {
					if rss := maxRSS(ps); rss > 0 {
						o.PeakBytes, o.Memory = rss, "rss"
					}
				}
			}
			return o
		case <-expire:
			stop()
			return bench.Outcome{TimedOut: true, Err: fmt.Sprintf("over the timeout of %v (killed)", timeout)}
		case <-ctx.Done():
			stop()
			return bench.Outcome{Err: ctx.Err().Error(), AUC: math.NaN(), AP: math.NaN()}
		}
	}
	close = func() {
		mu.Lock()
		defer mu.Unlock()
		if w != nil {
			w.stdin.Close() // the child ends at the end of its input
			w.wait()
			w = nil
		}
	}
	return run, close
}

// worker is one "bench-task --serve" child.
type worker struct {
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	enc     *json.Encoder
	replies chan workerResult
	stderr  *tailBuffer
	done    chan struct{} // closed when Wait has returned
}

type workerResult struct {
	reply workerReply
	err   error
}

func startWorker(exe string) (*worker, error) {
	cmd := exec.Command(exe, "bench-task", "--serve")
	cmd.Env = append(os.Environ(), benchChildEnv)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w := &worker{cmd: cmd, stdin: stdin, enc: json.NewEncoder(stdin), replies: make(chan workerResult, 1),
		stderr: &tailBuffer{max: 8 << 10}, done: make(chan struct{})}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: starting %s bench-task: %v", exe, err)
	}
	go func() {
		dec := json.NewDecoder(stdout)
		for {
			var r workerReply
			if err := dec.Decode(&r); err != nil {
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				w.replies <- workerResult{err: err}
				return
			}
			w.replies <- workerResult{reply: r}
		}
	}()
	return w, nil
}

// failure kills the child and says why it failed: the last line it wrote
// to stderr, else err.
func (w *worker) failure(err error) string {
	w.kill()
	if msg := oneLine(w.stderr.String()); msg != "" {
		return msg
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "bench-task wrote no result"
	}
	return err.Error()
}

func (w *worker) kill() {
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
	w.wait()
}

// wait reaps the child once and returns its state.
func (w *worker) wait() *os.ProcessState {
	select {
	case <-w.done:
	default:
		w.stdin.Close()
		w.cmd.Wait()
		close(w.done)
	}
	return w.cmd.ProcessState
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
