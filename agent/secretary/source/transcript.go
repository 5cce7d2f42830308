package source

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Bounds on transcript reading.
const (
	maxTranscriptFiles = 2000
	maxTranscriptDepth = 3
	maxReadPerPoll     = 4 << 20  // bytes per file per poll; the rest follows next poll
	maxReadAllFiles    = 32 << 20 // bytes per poll over all files; the rest follows next poll
)

// Transcripts tails the coding assistant's JSONL session logs (Claude Code
// writes one file per session under ~/.claude/projects/<project>/).
type Transcripts struct {
	Dir   string
	Repos []Repo        // to map a session's working directory to a context
	Since time.Duration // skip files not modified for this long (0 = no limit)
	Now   func() time.Time

	// maxFiles and maxBytes bound the files one poll looks at and what
	// it reads of them (zero: maxTranscriptFiles, maxReadAllFiles); tests
	// set them small.
	maxFiles, maxBytes int
}

func (t Transcripts) fileCap() int { return setOr(t.maxFiles, maxTranscriptFiles) }
func (t Transcripts) byteCap() int { return setOr(t.maxBytes, maxReadAllFiles) }

// CursorTranscript names the cursor of one transcript file: "offset inode".
func CursorTranscript(path string) string { return "transcript:" + path }

// cursorTouched names the cursor holding the files a transcript's session
// has touched (Touched), as a JSON list.
func cursorTouched(path string) string { return "transcript-touched:" + path }

// cursorWalk names the cursor of the walk through the transcripts under
// root: the path (relative to root) of the last file a poll cut short by
// its bounds handled, or "" once a walk went to the end.
func cursorWalk(root string) string { return "transcript-walk:" + root }

// Poll reads the lines appended to each transcript since its cursor. A file
// that shrank or was replaced (another inode) is read again from the start.
// One poll looks at maxFiles files and reads about maxBytes of them; when
// there is more, the next poll goes on after the last file handled (each
// file keeps its own cursor), and the walk starts over once it reached the
// end. A poll that stopped at the bound and the next that began at the top
// again never read the files past it.
func (t Transcripts) Poll(ctx context.Context, cur Cursors) (Batch, error) {
	b := Batch{Source: "transcript", Cursors: map[string]string{}}
	if t.Dir == "" {
		return b, nil
	}
	root := filepath.Clean(t.Dir)
	after, _, err := cur.ContextCursor(ctx, cursorWalk(root))
	if err != nil {
		return b, err
	}
	files, cut, err := t.files(root, after)
	if err != nil {
		return b, err
	}
	read := 0
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return b, err
		}
		n, err := t.pollFile(ctx, f, cur, &b)
		if err != nil {
			return b, err
		}
		if read += n; read >= t.byteCap() && i < len(files)-1 {
			files, cut = files[:i+1], true
			break
		}
	}
	next := ""
	if cut && len(files) > 0 {
		next, _ = filepath.Rel(root, files[len(files)-1])
	}
	if next != after {
		b.Cursors[cursorWalk(root)] = next
	}
	return b, nil
}

// files lists the *.jsonl files under root that the walk meets after the
// file after ("" = from the start), bounded in depth and count; cut
// reports whether the count bound stopped the walk.
func (t Transcripts) files(root, after string) (out []string, cut bool, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return fs.SkipAll // no transcripts yet
			}
			return nil // unreadable entry: skip it
		}
		rel, _ := filepath.Rel(root, p)
		if after != "" && p != root && !walksAfter(rel, after) {
			if d.IsDir() && !leadsTo(rel, after) {
				return fs.SkipDir // all of it was handled before
			}
			return nil
		}
		depth := strings.Count(strings.TrimPrefix(p, root), string(filepath.Separator))
		if d.IsDir() && depth > maxTranscriptDepth {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") {
			if len(out) >= t.fileCap() {
				cut = true
				return fs.SkipAll
			}
			out = append(out, p)
		}
		return nil
	})
	return out, cut, err
}

// walksAfter reports whether filepath.WalkDir meets the relative path p
// after q: it reads each folder's names in order and a folder's contents
// right after the folder, so paths compare name by name.
func walksAfter(p, q string) bool {
	return slices.Compare(splitPath(p), splitPath(q)) > 0
}

// leadsTo reports whether the folder dir (relative) holds the path p.
func leadsTo(dir, p string) bool {
	d, ps := splitPath(dir), splitPath(p)
	return len(d) < len(ps) && slices.Equal(d, ps[:len(d)])
}

func splitPath(p string) []string { return strings.Split(filepath.ToSlash(p), "/") }

// pollFile adds the complete lines after the file's cursor to the batch
// and returns how many bytes of the file they are.
func (t Transcripts) pollFile(ctx context.Context, path string, cur Cursors, b *Batch) (int, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, nil // vanished between listing and reading
	}
	ino := inode(fi)
	offset, oldIno, err := readOffset(ctx, cur, path)
	if err != nil {
		return 0, err
	}
	if oldIno != ino || fi.Size() < offset {
		offset = 0 // rotated or truncated: start over
	}
	if fi.Size() == offset {
		return 0, nil
	}
	if t.Since > 0 && t.now().Sub(fi.ModTime()) > t.Since && offset == 0 {
		// An old session: remember where it ends, index nothing.
		b.Cursors[CursorTranscript(path)] = formatOffset(fi.Size(), ino)
		return 0, nil
	}
	// What is there to read, not a whole read's 4 MB for each file.
	chunk, err := readChunk(path, offset, int(min(fi.Size()-offset, maxReadPerPoll)))
	if err != nil {
		return 0, nil
	}
	end := strings.LastIndexByte(string(chunk), '\n') + 1
	if end == 0 {
		if len(chunk) < maxReadPerPoll {
			return 0, nil // a line still being written
		}
		end = len(chunk) // one line longer than a whole read: drop it
	}
	touched, err := readTouched(ctx, cur, path, offset)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(chunk[:end]), "\n") {
		b.Events = append(b.Events, parseTranscriptLine(line, t.Repos, fi.ModTime(), touched)...)
	}
	b.Cursors[CursorTranscript(path)] = formatOffset(offset+int64(end), ino)
	if touched.changed || offset == 0 {
		b.Cursors[cursorTouched(path)] = touched.encode()
	}
	return end, nil
}

// readTouched loads what the session touched in the lines before offset
// (none when the file is read from the start).
func readTouched(ctx context.Context, cur Cursors, path string, offset int64) (*Touched, error) {
	if offset == 0 {
		return &Touched{}, nil
	}
	v, ok, err := cur.ContextCursor(ctx, cursorTouched(path))
	if err != nil || !ok {
		return &Touched{}, err
	}
	return decodeTouched(v), nil
}

func (t Transcripts) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

func readChunk(path string, offset int64, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := f.ReadAt(buf, offset)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return buf[:m], nil
}

func readOffset(ctx context.Context, cur Cursors, path string) (offset int64, ino uint64, err error) {
	v, ok, err := cur.ContextCursor(ctx, CursorTranscript(path))
	if err != nil || !ok {
		return 0, 0, err
	}
	o, i, _ := strings.Cut(v, " ")
	offset, _ = strconv.ParseInt(o, 10, 64)
	ino, _ = strconv.ParseUint(i, 10, 64)
	return offset, ino, nil
}

func formatOffset(offset int64, ino uint64) string { return fmt.Sprintf("%d %d", offset, ino) }

// inode identifies the file behind a path, so a rotated log is noticed.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
