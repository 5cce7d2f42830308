package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/ctlclient"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/tui"
)

// app is one invocation of the CLI: where output goes and the persistent
// flags. Commands are methods so nothing lives in package variables.
type app struct {
	stdout, stderr io.Writer

	dataDirFlag string
	configFlag  string
	jsonOut     bool
}

// rootCmd builds the command tree.
func (a *app) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "aoi",
		Short: "aoi — a terminal secretary that answers your colleagues' agents",
		Long: "aoi runs a secretary agent for you: it answers colleagues' agents from your work,\n" +
			"buffers or escalates what it cannot answer, and asks before doing anything.\n" +
			"With no command it opens the interface (starting the agent core, or attaching\n" +
			"to an `aoi serve` already running for the same data dir).",
		Args:          args(unknownCommand),
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE:          func(cmd *cobra.Command, _ []string) error { return a.runInterface(cmd.Context()) },
	}
	root.SetFlagErrorFunc(flagError)
	pf := root.PersistentFlags()
	pf.StringVar(&a.dataDirFlag, "data-dir", "", "data directory (default $AOI_DATA_DIR, else $XDG_DATA_HOME/aoi)")
	pf.StringVar(&a.configFlag, "config", "", "config file (default $AOI_CONFIG_PATH, else located from the data dir)")
	pf.BoolVar(&a.jsonOut, "json", false, "print machine-readable JSON")
	root.AddCommand(
		a.serveCmd(), a.initCmd(), a.statusCmd(), a.peersCmd(), a.discoverCmd(),
		a.queryCmd(), a.inboxCmd(), a.sendCmd(), a.messagesCmd(), a.answerCmd(), a.declineCmd(), a.releaseCmd(),
		a.focusCmd(), a.noteCmd(), a.taskCmd(), a.tasksCmd(), a.approvalsCmd(), a.outboxCmd(),
		a.approveCmd(), a.rejectCmd(), a.auditCmd(), a.configCmd(), a.versionCmd(),
		a.mcpCmd(), a.idCmd(), a.benchCmd(),
		a.serviceCmd(),
		a.pruneCmd(),
		a.exportCmd(),
		a.forgetCmd(),
		a.doctorCmd(),
		a.reloadCmd(),
	)
	return root
}

// dataDir is the data directory this invocation works on.
func (a *app) dataDir() string {
	return config.DataDir(a.dataDirFlag)
}

// service connects to the aoi running for the data dir.
func (a *app) service() (*ctlclient.Client, error) {
	return ctlclient.Dial(a.dataDir())
}

// call runs f against the aoi running for the data dir. S is the part of
// agent.Service the command uses (one of its narrow interfaces, or a union
// below), so each command group depends only on what it calls.
func call[S any](a *app, f func(svc S) error) error {
	c, err := a.service()
	if err != nil {
		return err
	}
	defer c.Close()
	return as(c, f)
}

// callOrOpen is call for commands that read what the data dir holds (the
// audit log, the inbox): with no aoi running it opens the core in this
// process for the duration of f (nothing listens; the database is only
// ever written by one process at a time), so they work after a clean stop.
func callOrOpen[S any](ctx context.Context, a *app, f func(svc S) error) error {
	c, err := a.service()
	if err == nil {
		defer c.Close()
		return as(c, f)
	}
	var nd *ctlclient.NoDaemonError
	if !errors.As(err, &nd) || !nd.SetUp() {
		// Nothing to open (no identity there, whatever --config says):
		// the error says to check --data-dir or run aoi init.
		return err
	}
	core, err := agent.Open(ctx, agent.Options{DataDir: a.dataDir(), ConfigPath: a.configFlag,
		Progress: func(s string) { fmt.Fprintln(a.stderr, "aoi: "+s) }})
	if err != nil {
		return err
	}
	defer core.Close()
	return as(core, f)
}

// as hands svc to f as the part of agent.Service f uses.
func as[S any](svc any, f func(svc S) error) error {
	s, ok := svc.(S)
	if !ok { // a programming error: S asks for more than agent.Service
		return fmt.Errorf("internal error: %T does not implement %s", svc, reflect.TypeFor[S]())
	}
	return f(s)
}

// The unions of narrow services the commands that watch or wait use.
type (
	// watcher follows events and reads the messages they announce
	// (follow, messageLine).
	watcher interface {
		agent.EventService
		agent.MessagingService
	}
	// asker asks peers and waits for their answers (query, task).
	asker interface {
		agent.AskingService
		watcher
	}
	// answerer answers received queries and says when the asker is
	// offline (the answer waits in the outbox).
	answerer interface {
		agent.InboxService
		agent.PeerService
	}
	// inboxWatcher lists and follows received queries and messages.
	inboxWatcher interface {
		agent.InboxService
		watcher
	}
	// approvalWatcher lists and follows approvals.
	approvalWatcher interface {
		agent.ApprovalService
		watcher
	}
)

// The control client offers every union above (the narrow services are
// parts of agent.Service), so call's check never fails for them.
var (
	_ asker           = (*ctlclient.Client)(nil)
	_ inboxWatcher    = (*ctlclient.Client)(nil)
	_ approvalWatcher = (*ctlclient.Client)(nil)
)

// emit prints v as JSON with --json, else calls human.
func (a *app) emit(v any, human func(w io.Writer)) error {
	if a.jsonOut {
		return a.printJSON(v)
	}
	human(a.stdout)
	return nil
}

// printJSON writes v indented, one value per call.
func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(safeJSONWriter{a.stdout})
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// done prints a one-line confirmation (or {"ok":true} with --json).
func (a *app) done(format string, args ...any) error {
	if a.jsonOut {
		return a.printJSON(map[string]bool{"ok": true})
	}
	fmt.Fprintf(a.stdout, format+"\n", args...)
	return nil
}

// table writes aligned columns: a header row then rows, two spaces
// apart. Widths are counted in terminal cells, so Japanese text (two cells
// a character) keeps the columns after it in line; text/tabwriter counts
// runes. Cells are assumed to be sanitised already.
func table(w io.Writer, header []string, rows [][]string) {
	all := append([][]string{header}, rows...)
	var widths []int
	for _, r := range all {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var b strings.Builder
	for _, r := range all {
		b.Reset()
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// cell sanitises peer text for one table cell and shortens it to max
// terminal cells (a Japanese character takes two), with whole words and
// an ellipsis as the interface's rows are cut (tui.CutWords).
func cell(s string, max int) string {
	s = sanitize(s, false)
	if max > 0 && ansi.StringWidth(s) > max {
		return tui.CutWords(s, max)
	}
	return s
}

// when formats a time for tables: local clock time today, else the date.
func when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	t = t.Local()
	if y, m, d := t.Date(); y == time.Now().Year() && m == time.Now().Month() && d == time.Now().Day() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04")
}

// dash shows "-" for an empty value.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// unknownCommand refuses words after `aoi` that name no command, with
// cobra's suggestions ("did you mean query?"), which cobra.NoArgs leaves
// out.
func unknownCommand(cmd *cobra.Command, argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2 // cobra's own default, set only on its path
	}
	msg := fmt.Sprintf("unknown command %q for %q", argv[0], cmd.CommandPath())
	s := namedFor(cmd, argv[0])
	for _, t := range typoOf(argv[0], cmd.SuggestionsFor(argv[0])) {
		if !slices.Contains(s, t) {
			s = append(s, t)
		}
	}
	if len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return errors.New(msg)
}

// namedFor are the commands that list word in their SuggestFor: another
// word for what they do ("aoi ask" for query, as the interface's "@ ask a
// peer" says), which typoOf would drop for not starting as word does.
func namedFor(cmd *cobra.Command, word string) []string {
	var out []string
	for _, c := range cmd.Commands() {
		if slices.Contains(c.SuggestFor, word) {
			out = append(out, c.Name())
		}
	}
	return out
}

// typoOf keeps the suggestions that start as word does: two edits turn
// "bogus" into "focus", which nobody meant, while a typo rarely hits the
// first letter ("qeury", "stauts").
func typoOf(word string, suggestions []string) []string {
	var out []string
	for _, s := range suggestions {
		if word != "" && s != "" && s[0] == word[0] {
			out = append(out, s)
		}
	}
	return out
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
