package source

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

func (t Transcripts) fileCap() int {
	if t.maxFiles > 0 {
		return t.maxFiles
	}
	return maxTranscriptFiles
}

func (t Transcripts) byteCap() int {
	if t.maxBytes > 0 {
		return t.maxBytes
	}
	return maxReadAllFiles
}

// CursorTranscript names the cursor of one transcript file: "offset inode".
func CursorTranscript(path string) string { return "transcript:" + path }

// cursorTouched names the cursor holding the files a transcript's session
// has touched (Touched), as a JSON list.
func cursorTouched(path string) string { return "transcript-touched:" + path }

// Poll reads the lines appended to each transcript since its cursor. A file
// that shrank or was replaced (another inode) is read again from the start.
func (t Transcripts) Poll(ctx context.Context, cur Cursors) (Batch, error) {
	b := Batch{Source: "transcript", Cursors: map[string]string{}}
	if t.Dir == "" {
		return b, nil
	}
	files, err := t.files()
	if err != nil {
		return b, err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return b, err
		}
		if err := t.pollFile(ctx, f, cur, &b); err != nil {
			return b, err
		}
	}
	return b, nil
}

// files lists the *.jsonl files under Dir, bounded in depth and count.
func (t Transcripts) files() ([]string, error) {
	root := filepath.Clean(t.Dir)
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && os.IsNotExist(err) {
				return fs.SkipAll // no transcripts yet
			}
			return nil // unreadable entry: skip it
		}
		depth := strings.Count(strings.TrimPrefix(p, root), string(filepath.Separator))
		if d.IsDir() && depth > maxTranscriptDepth {
			return fs.SkipDir
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
			if len(out) >= t.fileCap() {
				return fs.SkipAll
			}
		}
		return nil
	})
	return out, err
}

// pollFile adds the complete lines after the file's cursor to the batch.
func (t Transcripts) pollFile(ctx context.Context, path string, cur Cursors, b *Batch) error {
	fi, err := os.Stat(path)
	if err != nil {
		return nil // vanished between listing and reading
	}
	ino := inode(fi)
	offset, oldIno, err := readOffset(ctx, cur, path)
	if err != nil {
		return err
	}
	if oldIno != ino || fi.Size() < offset {
		offset = 0 // rotated or truncated: start over
	}
	if fi.Size() == offset {
		return nil
	}
	if t.Since > 0 && t.now().Sub(fi.ModTime()) > t.Since && offset == 0 {
		// An old session: remember where it ends, index nothing.
		b.Cursors[CursorTranscript(path)] = formatOffset(fi.Size(), ino)
		return nil
	}
	chunk, err := readChunk(path, offset, maxReadPerPoll)
	if err != nil {
		return nil
	}
	end := strings.LastIndexByte(string(chunk), '\n') + 1
	if end == 0 {
		if len(chunk) < maxReadPerPoll {
			return nil // a line still being written
		}
		end = len(chunk) // one line longer than a whole read: drop it
	}
	touched, err := readTouched(ctx, cur, path, offset)
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(chunk[:end]), "\n") {
		b.Events = append(b.Events, parseTranscriptLine(line, t.Repos, fi.ModTime(), touched)...)
	}
	b.Cursors[CursorTranscript(path)] = formatOffset(offset+int64(end), ino)
	if touched.changed || offset == 0 {
		b.Cursors[cursorTouched(path)] = touched.encode()
	}
	return nil
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
