package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/rpc"
)

// Exit codes (design §9).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// run executes one aoi command line and returns the process exit code. It
// is main without the process: tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{stdout: stdout, stderr: stderr}
	root := a.rootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	return a.exitCode(requiredFlagUsage(cmd, err))
}

// requiredFlagUsage makes cobra's missing-required-flag error a usage error
// (exit 2) that names the command's usage line: `required flag(s) "agent"
// not set` alone comes out as a failure.
func requiredFlagUsage(cmd *cobra.Command, err error) error {
	if err == nil || cmd == nil || !strings.HasPrefix(err.Error(), "required flag(s) ") {
		return err
	}
	return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf("usage: %s (%s)", strings.TrimSuffix(cmd.UseLine(), " [flags]"), err)}
}

// exitCode prints err the way a person should see it and maps it to an
// exit code.
func (a *app) exitCode(err error) int {
	var usage *usageError
	var silent *exitError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &silent):
		return silent.code
	case errors.As(err, &usage):
		fmt.Fprintf(a.stderr, "aoi: %s\n", sanitize(usage.err.Error(), true))
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", usage.cmd)
		return exitUsage
	default:
		// Errors can carry a peer's words (its error message): sanitised
		// like everything else a peer sent before it reaches the terminal.
		fmt.Fprintf(a.stderr, "aoi: %s\n", sanitize(describe(err), true))
		return exitFailure
	}
}

// describe words an error for a person. A failure the core explained over
// the control socket, or a JSON-RPC protocol error with a reason ("Invalid
// params"), is shown as its reason alone, which is written for people; an
// AOI error keeps its message ("Permission denied") in front of the reason.
func describe(err error) string {
	var re *rpc.Error
	if !errors.As(err, &re) {
		return err.Error()
	}
	reason := re.Reason()
	switch {
	case reason == "":
		return re.Message
	case re.Code == agent.CodeControlFailed || rpc.ProtocolCode(re.Code):
		return reason
	}
	return re.Message + ": " + reason
}

// usageError is a command line that cannot be run as written (exit 2).
type usageError struct {
	cmd string // the command path, e.g. "aoi peers trust"
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error for cmd.
func usagef(cmd *cobra.Command, format string, args ...any) error {
	return &usageError{cmd: cmd.CommandPath(), err: fmt.Errorf(format, args...)}
}

// exitError ends the command with a code after it has already said why.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// args wraps a cobra argument validator so its complaints are usage errors.
// A wrong count names what the command takes: cobra's "requires at least 2
// arg(s), only received 1" alone does not say which are missing.
func args(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, a []string) error {
		if err := v(cmd, a); err != nil {
			if strings.Contains(err.Error(), "arg(s)") {
				err = fmt.Errorf("usage: %s (%s)", strings.TrimSuffix(cmd.UseLine(), " [flags]"),
					strings.ReplaceAll(argCountWords.Replace(err.Error()), " 1 arguments", " 1 argument"))
			}
			return &usageError{cmd: cmd.CommandPath(), err: err}
		}
		return nil
	}
}

// argCountWords rewords cobra's argument counts ("requires at least 2
// arg(s), only received 1") for people: "needs at least 2 arguments, got 1".
var argCountWords = strings.NewReplacer("requires at least", "needs at least", "accepts at most", "takes at most",
	"accepts between", "takes between", "accepts", "takes", " arg(s)", " arguments", "only received", "got", "received", "got")

// flagError turns flag parsing failures into usage errors. A duration
// without its unit gets an example instead of Go's "time: missing unit".
func flagError(cmd *cobra.Command, err error) error {
	if strings.Contains(err.Error(), "time: missing unit") || strings.Contains(err.Error(), "time: invalid duration") {
		err = fmt.Errorf("%v: a duration needs its unit, e.g. 30s, 2m or 1h", err)
	}
	return &usageError{cmd: cmd.CommandPath(), err: err}
}
