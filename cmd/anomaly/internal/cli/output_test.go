package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 17's output rules, through the real commands: score --out on a
// FIFO, a symbolic link into another directory, standard output, a 0600
// file and the inputs themselves; fit --out onto its own data; /dev/full.
// Each case checks where the bytes went, the mode after, and that every
// input is byte-identical afterwards.
func TestOutputRules(t *testing.T) {
	dir := t.TempDir()
	train, model := fitModel(t, dir)
	test := write(t, filepath.Join(dir, "test.csv"), testCSV)
	code, want, stderr := run(context.Background(), "score", "--model", model, "--data", test)
	if code != 0 || !strings.HasPrefix(want, "score,anomaly\n") {
		t.Fatalf("score to stdout: exit %d, %q, %s", code, want, stderr)
	}
	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		for _, p := range []string{train, model, test} {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			m[p] = b
		}
		return m
	}
	before := snapshot()
	inputsUnchanged := func(t *testing.T) {
		t.Helper()
		for p, b := range snapshot() {
			if !bytes.Equal(b, before[p]) {
				t.Errorf("%s changed", p)
			}
		}
	}
	noTemps := func(t *testing.T, d string) {
		t.Helper()
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("temporary file %s left in %s", e.Name(), d)
			}
		}
	}

	t.Run("dash is stdout", func(t *testing.T) {
		code, out, stderr := run(context.Background(), "score", "--model", model, "--data", test, "--out", "-")
		if code != 0 || out != want {
			t.Errorf("exit %d, stdout %q, stderr %s", code, out, stderr)
		}
		inputsUnchanged(t)
	})

	t.Run("private file keeps its mode", func(t *testing.T) {
		p := filepath.Join(dir, "private.csv")
		write(t, p, "old contents\n")
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := run(context.Background(), "score", "--model", model, "--data", test, "--out", p); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		st, _ := os.Stat(p)
		got, _ := os.ReadFile(p)
		if st.Mode().Perm() != 0o600 || string(got) != want {
			t.Errorf("mode %v, contents %q; want 0600 and the scores", st.Mode().Perm(), got)
		}
		noTemps(t, dir)
		inputsUnchanged(t)
	})

	t.Run("symlink into another directory", func(t *testing.T) {
		other := t.TempDir()
		target := filepath.Join(other, "scores.csv")
		write(t, target, "old\n")
		os.Chmod(target, 0o640)
		link := filepath.Join(dir, "scores.lnk")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if code, _, stderr := run(context.Background(), "score", "--model", model, "--data", test, "--out", link); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
		}
		got, _ := os.ReadFile(target)
		st, _ := os.Stat(target)
		if string(got) != want || st.Mode().Perm() != 0o640 {
			t.Errorf("target holds %q with mode %v; want the scores with 0640", got, st.Mode().Perm())
		}
		noTemps(t, dir)
		noTemps(t, other)
		inputsUnchanged(t)
	})

	t.Run("fifo is written in place", func(t *testing.T) {
		fifo := filepath.Join(dir, "scores.fifo")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		got := make(chan []byte)
		go func() {
			f, err := os.Open(fifo) // blocks until the writer opens
			if err != nil {
				got <- nil
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- b
		}()
		if code, _, stderr := run(context.Background(), "score", "--model", model, "--data", test, "--out", fifo); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if b := <-got; string(b) != want {
			t.Errorf("the reader got %q", b)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
		}
		inputsUnchanged(t)
	})

	for _, tc := range []struct {
		name string
		args []string
	}{
		{"score onto its data", []string{"score", "--model", model, "--data", test, "--out", test}},
		{"score onto its model", []string{"score", "--model", model, "--data", test, "--out", model}},
		{"fit onto its data", []string{"fit", "--method", "meandist", "--data", train, "--out", train}},
		{"export onto its model", []string{"export", "--model", model, "--out", model}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(context.Background(), tc.args...)
			if code != ExitUsage || !strings.Contains(stderr, "write the output to another file") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line", code, stderr)
			}
			inputsUnchanged(t)
			noTemps(t, dir)
		})
	}

	t.Run("hard link to the data", func(t *testing.T) {
		hard := filepath.Join(dir, "hard.csv")
		if err := os.Link(test, hard); err != nil {
			t.Skipf("link: %v", err)
		}
		code, _, stderr := run(context.Background(), "score", "--model", model, "--data", test, "--out", hard)
		if code != ExitUsage || !strings.Contains(stderr, "same file as the input") {
			t.Errorf("exit %d, %q", code, stderr)
		}
		inputsUnchanged(t)
	})

	t.Run("full device", func(t *testing.T) {
		if _, err := os.Stat("/dev/full"); err != nil {
			t.Skip("no /dev/full on this system")
		}
		code, _, stderr := run(context.Background(), "score", "--model", model, "--data", test, "--out", "/dev/full")
		if code != ExitInternal || !strings.Contains(stderr, "no space left on device") {
			t.Errorf("exit %d, %q; want 3 and ENOSPC", code, stderr)
		}
		if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeDevice == 0 {
			t.Errorf("/dev/full is no longer a device: %v %v", fi, err)
		}
	})
}

// Help and usage text that cannot be written is an error: cobra drops its
// write errors, and --help > /dev/full exited 0 having written nothing.
func TestHelpWriteError(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"fit", "--help"}, {}, {"methods"}} {
		var stderr strings.Builder
		code := RunIO(context.Background(), args, strings.NewReader(""), fullWriter{}, &stderr)
		if code != ExitInternal || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("%q: exit %d, %q; want 3 and the write error", args, code, stderr.String())
		}
	}
}

// fullWriter fails every write as a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// The address space the process holds is read from /proc on Linux: the Go
// runtime alone reserves hundreds of MB at start, which an address-space
// limit counts.
func TestAddressSpaceInUse(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status")
	}
	if got := addressSpaceInUse(); got < 100<<20 {
		t.Errorf("addressSpaceInUse = %d bytes, want the process's VmSize (hundreds of MB at least for a Go test binary)", got)
	}
}

// TestFitModelToTerminal: fit --out - with a terminal on standard output
// is refused before the data is read (it wrote the binary model to the
// terminal); not a terminal, the model goes to standard output.
func TestFitModelToTerminal(t *testing.T) {
	dir := t.TempDir()
	train := write(t, filepath.Join(dir, "train.csv"), trainCSV)
	old := stdoutIsTerminal
	defer func() { stdoutIsTerminal = old }()
	stdoutIsTerminal = func() bool { return true }
	code, stdout, stderr := run(context.Background(), "fit", "--method", "meandist", "--data", train, "--out", "-")
	if code != ExitUsage || stdout != "" || !strings.Contains(stderr, "--out -: the model is binary and standard output is a terminal; redirect it") {
		t.Errorf("to a terminal: exit %d, stdout %q, stderr %q; want exit %d and a refusal", code, stdout, stderr, ExitUsage)
	}
	assertFiles(t, dir, "train.csv")
	// Not a terminal: fit writes to the process's standard output, here
	// a file in place of it.
	stdoutIsTerminal = func() bool { return false }
	f, err := os.Create(filepath.Join(t.TempDir(), "model.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdout
	os.Stdout = f
	code, _, stderr = run(context.Background(), "fit", "--method", "meandist", "--data", train, "--out", "-")
	os.Stdout = saved
	if st, _ := f.Stat(); code != ExitOK || st.Size() == 0 {
		t.Errorf("not a terminal: exit %d, stderr %q, %d bytes written", code, stderr, st.Size())
	}
}
