package output

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// An aborted write leaves the old file as it was and no temporary file; a
// committed one replaces it whole.
func TestAbortKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := Create(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half of the new")
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old" || len(listDir(t, dir)) != 1 {
		t.Fatalf("after Abort: %q, dir %v", b, listDir(t, dir))
	}
	if err := WriteFile(p, []byte("new"), Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "new" || len(listDir(t, dir)) != 1 {
		t.Fatalf("after WriteFile: %q, dir %v", b, listDir(t, dir))
	}
}

// A new file gets 0644 less the umask; an existing one keeps its mode.
func TestModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	p := filepath.Join(dir, "new.txt")
	if err := WriteFile(p, []byte("x"), Options{}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", st.Mode().Perm())
	}
	os.Chmod(p, 0o600)
	WriteFile(p, []byte("y"), Options{})
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Errorf("replaced file mode %v, want 0600 kept", st.Mode().Perm())
	}
}

// Links are followed, also when the file they name does not exist yet and
// through chains; a loop is an error.
func TestLinks(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	target := filepath.Join(other, "target.txt")
	chain1, chain2 := filepath.Join(dir, "a.lnk"), filepath.Join(dir, "b.lnk")
	os.Symlink(target, chain2)
	os.Symlink("b.lnk", chain1) // relative to the link's directory
	if err := WriteFile(chain1, []byte("via two links"), Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "via two links" {
		t.Errorf("target holds %q", b)
	}
	for _, l := range []string{chain1, chain2} {
		if fi, _ := os.Lstat(l); fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s was replaced", l)
		}
	}
	loop := filepath.Join(dir, "loop.lnk")
	os.Symlink("loop.lnk", loop)
	var pe *PathError
	if err := WriteFile(loop, []byte("x"), Options{}); !errors.As(err, &pe) || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("a link loop: %v", err)
	}
}

// A relative link inside a linked directory climbs from the directory the
// link really is in: proj/xlink is store/x, and store/x/s.csv -> ../data.csv
// names store/data.csv, not proj/data.csv (the input, which a join of the
// spelled path reached while the same-file check looked at the real
// target and passed).
func TestLinkThroughLinkedDirectory(t *testing.T) {
	root := t.TempDir()
	proj, store := filepath.Join(root, "proj"), filepath.Join(root, "store")
	os.MkdirAll(proj, 0o755)
	os.MkdirAll(filepath.Join(store, "x"), 0o755)
	in := filepath.Join(proj, "data.csv")
	os.WriteFile(in, []byte("a\n1\n"), 0o644)
	os.Symlink(filepath.Join(store, "x"), filepath.Join(proj, "xlink"))
	os.Symlink("../data.csv", filepath.Join(store, "x", "s.csv"))
	if err := WriteFile(filepath.Join(proj, "xlink", "s.csv"), []byte("scores"), Options{Inputs: []string{in}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(in); string(b) != "a\n1\n" {
		t.Errorf("the input was replaced: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(store, "data.csv")); string(b) != "scores" {
		t.Errorf("store/data.csv holds %q, want the output", b)
	}
}

// A ".." after a linked directory climbs from where the link points, as
// the kernel reads it: with ld -> real/deep, ld/../data.csv is
// real/data.csv, not ./data.csv (the input, which text cleaning of the
// path reached while the same-file check passed). The same through a link
// whose target spells ld/.., and into a missing directory's "..".
func TestDotDotAfterLinkedDirectory(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "real", "deep"), 0o755)
	os.Symlink(filepath.Join(root, "real", "deep"), filepath.Join(root, "ld"))
	in := filepath.Join(root, "data.csv")
	os.WriteFile(in, []byte("a\n1\n"), 0o644)
	os.Symlink("ld/../data.csv", filepath.Join(root, "out.lnk"))
	// Spelled, not filepath.Join'ed: Join would clean ld/.. away.
	for _, out := range []string{root + "/ld/../data.csv", filepath.Join(root, "out.lnk")} {
		if err := WriteFile(out, []byte("model"), Options{Inputs: []string{in}}); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		if b, _ := os.ReadFile(in); string(b) != "a\n1\n" {
			t.Fatalf("%s replaced the input: %q", out, b)
		}
		if b, _ := os.ReadFile(filepath.Join(root, "real", "data.csv")); string(b) != "model" {
			t.Errorf("%s: real/data.csv holds %q, want the output", out, b)
		}
		os.Remove(filepath.Join(root, "real", "data.csv"))
	}
	if err := WriteFile(root+"/nodir/../y.csv", []byte("x"), Options{}); err == nil {
		t.Error("nodir/../y.csv written; the kernel refuses it (nodir does not exist)")
	}
}

// A linked directory that leads to this process's descriptors
// (fdd -> /proc/self/fd) writes through the descriptor too: resolving the
// directory first used to follow fdd/N's link to the file and rename over
// it.
func TestDescriptorThroughLinkedDirectory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log.txt")
	os.WriteFile(p, []byte("first\n"), 0o644)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.Symlink("/proc/self/fd", filepath.Join(dir, "fdd"))
	if err := WriteFile(filepath.Join(dir, "fdd", strconv.Itoa(int(f.Fd()))), []byte("scores\n"), Options{}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first\nscores\n" {
		t.Errorf("log holds %q", b)
	}
}

// A descriptor path (/proc/self/fd/N, what /dev/stdout names) is written
// through the descriptor as it is open, appending after a shell's >>,
// never renamed over the file behind it; the descriptor stays open.
func TestDescriptorPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.txt")
	os.WriteFile(p, []byte("earlier lines\n"), 0o644)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, name := range []string{fmt.Sprintf("/proc/self/fd/%d", f.Fd()), fmt.Sprintf("/dev/fd/%d", f.Fd())} {
		if err := WriteFile(name, []byte("scores\n"), Options{}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := f.WriteString("after\n"); err != nil {
		t.Errorf("the descriptor was closed: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "earlier lines\nscores\nscores\nafter\n" {
		t.Errorf("log holds %q", b)
	}
	for path, want := range map[string]int{"/dev/stdout": 1, "/dev/fd/3": 3, "/proc/self/fd/4": 4,
		fmt.Sprintf("/proc/%d/task/%d/fd/5", os.Getpid(), os.Getpid()): 5, "/proc/thread-self/fd/6": 6} {
		if fd, err := fdOf(path); err != nil || fd != want {
			t.Errorf("%s: %d %v, want %d", path, fd, err, want)
		}
	}
	for _, path := range []string{"/proc/self/fdx/1", "/proc/self/fd/x", "/proc/self/fd", "/tmp/fd/1"} {
		if _, err := fdOf(path); err != errNoFD {
			t.Errorf("%s: %v, want no descriptor", path, err)
		}
	}
	if _, err := fdOf("/proc/1/fd/1"); err == nil || err == errNoFD {
		t.Errorf("another process's descriptor: %v", err)
	}
}

// A file this process may not write is refused, as a shell's > refuses
// it, not renamed over (root may write any file, so the check is for
// other users).
func TestReadOnlyRefused(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may write a read-only file")
	}
	p := filepath.Join(t.TempDir(), "ro.csv")
	os.WriteFile(p, []byte("keep"), 0o444)
	var pe *PathError
	if err := WriteFile(p, []byte("x"), Options{}); !errors.As(err, &pe) || !errors.Is(err, os.ErrPermission) {
		t.Errorf("a read-only file: %v, want a permission error", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep" {
		t.Errorf("the file holds %q", b)
	}
}

// Outputs that name an input, directly, through a link or a hard link,
// are refused; a directory is refused.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "data.csv")
	os.WriteFile(in, []byte("a\n1\n"), 0o644)
	link := filepath.Join(dir, "data.lnk")
	os.Symlink(in, link)
	hard := filepath.Join(dir, "hard.csv")
	os.Link(in, hard)
	for _, p := range []string{in, link, hard} {
		var se *SameFileError
		if _, err := Create(p, Options{Inputs: []string{in}}); !errors.As(err, &se) {
			t.Errorf("%s: %v, want a SameFileError", p, err)
		}
	}
	if _, err := Create(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
	if _, err := Create(filepath.Join(dir, "missing", "x"), Options{}); err == nil {
		t.Error("a missing directory: no error")
	}
	if b, _ := os.ReadFile(in); string(b) != "a\n1\n" {
		t.Errorf("the input changed: %q", b)
	}
}

// Write errors are returned, not swallowed: ENOSPC from /dev/full.
func TestDeviceErrors(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	err := WriteFile("/dev/full", []byte("x"), Options{})
	if !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("/dev/full: %v, want ENOSPC", err)
	}
}

func Example() {
	dir, _ := os.MkdirTemp("", "output-example")
	defer os.RemoveAll(dir)
	data := filepath.Join(dir, "data.csv")
	os.WriteFile(data, []byte("a\n1\n"), 0o644)

	f, err := Create(filepath.Join(dir, "scores.csv"), Options{Inputs: []string{data}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Abort() // a no-op once committed
	fmt.Fprintln(f, "score,anomaly")
	fmt.Println(f.Commit())

	_, err = Create(data, Options{Inputs: []string{data}})
	fmt.Println(err != nil)
	// Output:
	// <nil>
	// true
}

// A writable file in a directory the user may not write cannot be
// replaced (its temporary file has nowhere to go): the error names the
// directory as the cause (root may write any directory, so the check is
// for other users).
func TestReadOnlyDirectoryNamed(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, which may write a read-only directory")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "f.csv")
	os.WriteFile(p, []byte("keep"), 0o666)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	err := WriteFile(p, []byte("x"), Options{})
	if err == nil || !strings.Contains(err.Error(), "temporary file in "+dir) {
		t.Errorf("error %v, want one naming the directory %s", err, dir)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep" {
		t.Errorf("the file holds %q", b)
	}
}

// Every name the file system allows can be written, replaced and checked:
// the temporary file's name is cut to fit (names of 236 to 255 bytes
// failed with "file name too long" when it repeated the whole name), also
// where the cut falls inside a multi-byte character. Two names that share
// their first maxTempBase bytes are written side by side.
func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		strings.Repeat("a", 235),
		strings.Repeat("b", 236),
		strings.Repeat("c", 255),
		strings.Repeat("é", 127) + "x", // 255 bytes, the cut falls inside an é
		strings.Repeat("c", 254) + "d",
	} {
		p := filepath.Join(dir, name)
		if err := Check(p, Options{}); err != nil {
			t.Fatalf("Check(%d-byte name): %v", len(name), err)
		}
		for _, content := range []string{"first", "second"} {
			if err := WriteFile(p, []byte(content), Options{}); err != nil {
				t.Fatalf("WriteFile(%d-byte name): %v", len(name), err)
			}
			if b, _ := os.ReadFile(p); string(b) != content {
				t.Fatalf("%d-byte name holds %q, want %q", len(name), b, content)
			}
		}
	}
	if got := listDir(t, dir); len(got) != 5 {
		t.Errorf("directory holds %d files, want the 5 outputs and no temporary file", len(got))
	}
	// One byte over the limit is the file system's refusal, named.
	err := WriteFile(filepath.Join(dir, strings.Repeat("z", 256)), []byte("x"), Options{})
	if !errors.Is(err, syscall.ENAMETOOLONG) {
		t.Errorf("256-byte name: %v, want file name too long", err)
	}
}

// A temporary file left by a process that no longer exists (killed while
// it wrote) is removed by the next write of the same output; one of a
// live process, and files of other names, are kept.
func TestOrphanedTemporaryRemoved(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.csv")
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true to get a finished process id:", err)
	}
	dead := cmd.Process.Pid
	orphan := filepath.Join(dir, fmt.Sprintf(".s.csv.%d.3.tmp", dead))
	live := filepath.Join(dir, ".s.csv.1.3.tmp") // pid 1 always exists
	other := filepath.Join(dir, fmt.Sprintf(".s.csv.x.%d.3.tmp", dead))
	for _, f := range []string{orphan, live, other} {
		os.WriteFile(f, []byte("partial"), 0o644)
	}
	if err := WriteFile(p, []byte("new"), Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); err == nil {
		t.Errorf("%s (process %d gone) was kept", filepath.Base(orphan), dead)
	}
	for _, f := range []string{live, other} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(f), err)
		}
	}
}

// A replaced file keeps its owner and group where this process may give
// them (root: any), so that its owner can still read it.
func TestReplacedFileKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file another owner needs root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "own.csv")
	os.WriteFile(p, []byte("old"), 0o640)
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Skip("cannot chown to 65534:", err)
	}
	if err := WriteFile(p, []byte("new"), Options{}); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	sys := st.Sys().(*syscall.Stat_t)
	if sys.Uid != 65534 || sys.Gid != 65534 || st.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: owner %d:%d mode %v, want 65534:65534 and 0640 kept", sys.Uid, sys.Gid, st.Mode().Perm())
	}
}
