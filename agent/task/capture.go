package task

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// capture receives a task's stdout and stderr. It copies at most max bytes to
// a file (so a chatty task cannot fill the disk) and always keeps the last
// tailSize bytes in memory for the result's tail.
type capture struct {
	mu        sync.Mutex
	file      io.WriteCloser // nil when the job has no output path
	max       int64
	written   int64 // bytes written to the file
	seen      int64 // bytes the process produced
	truncated bool
	tail      []byte
	tailSize  int
}

func newCapture(path string, max int64, tailSize int) (*capture, error) {
	c := &capture{max: max, tailSize: tailSize}
	if path != "" {
		// Made afresh, never through a link: a running task can write
		// the data dir, and may have put one here for a task queued
		// behind it (its id is known to the peer), to an owner's file.
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("open task output file: %w", err)
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return nil, fmt.Errorf("open task output file: %w", err)
		}
		c.file = f
	}
	return c, nil
}

// Write never fails: losing output must not kill the task. A file error
// stops further file writes and is noted like truncation.
func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen += int64(len(p))
	c.keepTail(p)
	if c.file == nil || c.truncated {
		return len(p), nil
	}
	room := c.max - c.written
	chunk := p
	if c.max > 0 && int64(len(chunk)) > room {
		chunk = chunk[:room]
	}
	n, err := c.file.Write(chunk)
	c.written += int64(n)
	if err != nil || len(chunk) < len(p) {
		c.truncated = true
		fmt.Fprintf(c.file, "\n[aoi: output truncated after %d bytes]\n", c.written)
	}
	return len(p), nil
}

func (c *capture) keepTail(p []byte) {
	if c.tailSize <= 0 {
		return
	}
	if len(p) >= c.tailSize {
		c.tail = append(c.tail[:0], p[len(p)-c.tailSize:]...)
		return
	}
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - c.tailSize; over > 0 {
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
}

func (c *capture) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.file == nil {
		return nil
	}
	err := c.file.Close()
	c.file = nil
	return err
}

func (c *capture) result() (tail string, seen, written int64, truncated bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.tail), c.seen, c.written, c.truncated
}
