// Package output is the one way the project writes a file: the command
// line's models, scores, exports, pictures and reports, plot.Save and the
// README splice tool all go through Create. Its rules:
//
//   - "-" is standard output.
//   - A symbolic link is followed: the file it points to is written, not
//     the link replaced.
//   - An existing regular file (or a new one) is written to a temporary
//     file in the target's own directory and renamed over the target when
//     the write is complete, so readers see
//     the old file or the new one, never a part; an interrupted or failed
//     write leaves the old file and no temporary behind. An existing file
//     keeps its permissions
//     and, as far as the process may give them (root: any), its owner and
//     group; a new one gets 0644 less the umask. A hard link to the old
//     file keeps the old contents: the name is given a new file, as with
//     every writer that renames into place.
//   - An existing file that is not a regular file — a device such as
//     /dev/full or /dev/null, a named pipe, a socket, a terminal,
//     /proc/self/fd/N — is written in place, never replaced.
//   - A directory is refused.
//   - An output that is the same file as one of the inputs (os.SameFile:
//     also through links and hard links, and the file standard input is
//     redirected from when an input is "-") is refused before any work, so
//     a user's data or model is never overwritten by its own result.
//
// Every write, sync, close or rename error (ENOSPC on /dev/full, EPIPE) is
// returned by Write or Commit; nothing is reported as written unless it
// was. The file's data are synced before the rename (without it a crash
// can leave an empty file under the target's name) and the directory
// after it. The temporary file is named by this package (pending.go), not
// by github.com/google/renameio, which the project used before: renameio
// names it "." + the whole target name + up to 19 digits and gives no way
// to change that, so a legal target name of 236 to 255 bytes could not be
// written at all ("file name too long"); here the name is cut to fit.
// The name carries the writer's process id, so that the next write of the
// same output removes what a killed process (SIGKILL, the out-of-memory
// killer) left behind.
package output
