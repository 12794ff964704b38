package output

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"unicode/utf8"
)

// pending is a temporary file beside the regular file it will replace:
// written, synced and renamed over the target by commit, removed by
// cleanup. Its name is "." + the target's name (cut to maxTempBase bytes)
// + "." + process id + "." + a sequence number + ".tmp", so that it
// stays under the 255-byte limit of a name for every target name that
// limit allows (a temporary name that repeated the whole target name
// made names of 236 to 255 bytes fail with "file name too long").
type pending struct {
	*os.File
	target string
	closed bool
	done   bool
}

// maxTempBase is how much of the target's name a temporary name repeats:
// 255 bytes (NAME_MAX) less the dot, a process id, a sequence number and
// ".tmp" leaves room to spare.
const maxTempBase = 200

// tempSeq numbers the temporary files of this process; the process id in
// the name keeps two processes writing into one directory apart, and
// O_EXCL catches whatever is left of an earlier process of the same id.
var tempSeq atomic.Uint64

// createPending creates the temporary file for target in target's
// directory. An existing regular target's permissions are kept; a new
// file gets 0644 less the umask.
func createPending(target string) (*pending, error) {
	perm, keep := os.FileMode(0o644), false
	st, err := os.Lstat(target)
	switch {
	case err == nil && st.Mode().IsRegular():
		perm, keep = st.Mode().Perm(), true
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return nil, err
	}
	dir, base := filepath.Split(target)
	stem := "." + clipName(base, maxTempBase) + "."
	removeOrphans(dir, stem)
	prefix := filepath.Join(dir, stem+strconv.Itoa(os.Getpid())+".")
	for attempt := 0; ; attempt++ {
		name := prefix + strconv.FormatUint(tempSeq.Add(1), 10) + ".tmp"
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, os.ErrExist) && attempt < 1000 {
			continue
		}
		if err != nil {
			return nil, err
		}
		p := &pending{File: f, target: target}
		if keep {
			// The umask applied at creation may have cut the kept
			// permissions.
			if err := f.Chmod(perm); err != nil {
				p.cleanup()
				return nil, err
			}
			keepOwner(f, st)
		}
		return p, nil
	}
}

// keepOwner gives f the owner and group of the file st describes, as far
// as this process may (root may give any; another user only a group it
// is in): a file of user A that root replaced became root's, and mode
// 0640 then kept A from reading it. Failures are ignored: the new file is
// then owned as any new file of this process.
func keepOwner(f *os.File, st os.FileInfo) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	uid, gid := int(sys.Uid), int(sys.Gid)
	if uid == os.Geteuid() && gid == os.Getegid() {
		return
	}
	if f.Chown(uid, gid) != nil {
		f.Chown(-1, gid)
	}
}

// commit makes the written file the target: its data are synced before
// the rename (without it, a crash after the rename can leave an empty
// file under the target's name), and the directory after it, so that the
// rename itself survives a crash. A directory that cannot be synced (some
// file systems refuse fsync on a directory) does not fail the commit: the
// file is in place by then.
func (p *pending) commit() error {
	if err := p.Sync(); err != nil {
		return err
	}
	p.closed = true
	if err := p.Close(); err != nil {
		return err
	}
	if err := os.Rename(p.Name(), p.target); err != nil {
		return err
	}
	p.done = true
	if d, err := os.Open(filepath.Dir(p.target)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// cleanup closes and removes the temporary file unless commit renamed it;
// it may be called more than once.
func (p *pending) cleanup() {
	if p.done {
		return
	}
	p.done = true
	if !p.closed {
		p.closed = true
		p.Close()
	}
	os.Remove(p.Name())
}

// removeOrphans removes the temporary files stem + pid + "." + n + ".tmp"
// in dir whose process no longer exists: what a process killed while it
// wrote (SIGKILL, the out-of-memory killer) left behind. A process that
// exists, or may (kill(2) says EPERM for another user's), keeps its file.
func removeOrphans(dir, stem string) {
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, name := range names {
		rest, ok := strings.CutPrefix(name, stem)
		if !ok {
			continue
		}
		rest, ok = strings.CutSuffix(rest, ".tmp")
		pid, n, cut := strings.Cut(rest, ".")
		if !ok || !cut || !digits(pid) || !digits(n) {
			continue
		}
		p, err := strconv.Atoi(pid)
		if err != nil || p <= 0 || p == os.Getpid() {
			continue
		}
		if errors.Is(syscall.Kill(p, 0), syscall.ESRCH) {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// digits reports whether s is one or more ASCII digits.
func digits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// clipName cuts name to at most n bytes without splitting a UTF-8
// sequence.
func clipName(name string, n int) string {
	if len(name) <= n {
		return name
	}
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n]
}
