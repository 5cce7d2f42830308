package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// gitTimeout bounds one git invocation.
const gitTimeout = 30 * time.Second

// errOutputCapped marks output cut at the byte cap; what was read is kept.
var errOutputCapped = errors.New("git output reached its size cap")

// capBuffer keeps at most max bytes and then refuses more, which ends git
// with SIGPIPE instead of letting it fill memory.
type capBuffer struct {
	buf bytes.Buffer
	max int
}

func (c *capBuffer) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if room <= 0 {
		return 0, errOutputCapped
	}
	if len(p) > room {
		c.buf.Write(p[:room])
		return room, errOutputCapped
	}
	return c.buf.Write(p)
}

// runGit runs git in dir with argv (no shell) and returns at most maxOut
// bytes of stdout; capped reports whether output was cut.
func runGit(ctx context.Context, dir string, maxOut int, args ...string) (out []byte, capped bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	// log.showRoot: the first commit's files are listed whatever the
	// owner's config says (the ACL judges a commit by them).
	argv := append([]string{"-C", dir, "-c", "core.quotepath=off", "-c", "color.ui=false", "-c", "log.showRoot=true"}, args...)
	cmd := exec.CommandContext(ctx, "git", argv...)
	// Never prompt, never take the index lock the owner's own git needs.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat")
	stdout := &capBuffer{max: maxOut}
	var stderr capBuffer
	stderr.max = 4 << 10
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err = cmd.Run()
	capped = stdout.buf.Len() >= maxOut
	if err != nil && !capped {
		return nil, false, fmt.Errorf("git %s in %s: %v: %s", args[0], dir, err, strings.TrimSpace(stderr.buf.String()))
	}
	return stdout.buf.Bytes(), capped, nil
}
