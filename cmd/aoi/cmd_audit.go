package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"github.com/aoi-protocol/aoi/internal/auditdetail"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent"
)

func (a *app) auditCmd() *cobra.Command {
	var f agent.AuditFilter
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit log, newest first",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return callOrOpen(cmd.Context(), a, func(svc agent.AuditService) error {
				es, err := svc.Audit(cmd.Context(), f)
				if err != nil {
					return err
				}
				return a.emit(es, func(w io.Writer) {
					printAudit(w, es)
					if len(es) == 0 && f != (agent.AuditFilter{Limit: f.Limit}) {
						fmt.Fprintln(w, noAuditRowsHint(f))
					}
				})
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Agent, "agent", "", "only rows about this agent")
	fl.StringVar(&f.Method, "method", "", "only rows for this method (e.g. aoi.query)")
	fl.StringVar(&f.Result, "result", "", "only rows with this result (ok, PERMISSION_DENIED or its label denied, …)")
	fl.IntVar(&f.Limit, "limit", 50, "how many rows")
	cmd.AddCommand(a.auditVerifyCmd(), a.auditExportCmd())
	return cmd
}

// noAuditRowsHint says what the filters given take, when no row matched
// them: `--agent pm` said only what results are, and a person looking for
// pm-tanaka's rows learnt nothing of why none showed.
func noAuditRowsHint(f agent.AuditFilter) string {
	var says []string
	if f.Agent != "" {
		says = append(says, "--agent takes an agent id whole, as `aoi peers` lists it")
	}
	if f.Method != "" {
		says = append(says, "--method takes a method whole, as the METHOD column shows it: aoi.query, task.request, ctl.answer, …")
	}
	if f.Result != "" || len(says) == 0 {
		says = append(says, "results are ok, error, or an error's name or label: denied, rate-limit, bad-params, timeout, …")
	}
	return "(with the filters given; " + strings.Join(says, "; ") + ")"
}

// printAudit prints rows as a table. RESULT reads as the interface's Audit
// pane says it (`denied`, `rate-limit`: agent.AuditResultLabel), so a row
// looks the same in both; --json keeps the error's name.
func printAudit(w io.Writer, es []agent.AuditEntry) {
	if len(es) == 0 {
		fmt.Fprintln(w, "no audit rows")
		return
	}
	rows := make([][]string, 0, len(es))
	for _, e := range es {
		rows = append(rows, []string{
			strconv.FormatInt(e.Seq, 10), e.Time.Local().Format(time.DateTime), cell(e.Agent, 24),
			cell(e.Method, 24), cell(agent.AuditResultLabel(e.Result), 20), cell(auditdetail.Summary(e.Detail), 60),
		})
	}
	table(w, []string{"SEQ", "TIME", "AGENT", "METHOD", "RESULT", "DETAIL"}, rows)
}

func (a *app) auditVerifyCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "verify",
		Short: "Walk the audit hash chain and name the first bad row",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return callOrOpen(cmd.Context(), a, func(svc agent.AuditService) error {
				v, err := svc.VerifyAudit(cmd.Context())
				if err != nil {
					return err
				}
				err = a.emit(v, func(w io.Writer) {
					if v.OK {
						fmt.Fprintf(w, "chain intact: %d entries%s\n", v.Entries, sealedText(v))
						if v.Warning != "" {
							// Not a failure: the chain verifies, but one
							// check could not run (with --json, "warning").
							fmt.Fprintf(a.stderr, "warning: %s\n", cell(v.Warning, 0))
						}
						return
					}
					fmt.Fprintf(w, "chain broken at seq %d: %s\n", v.FirstBad, cell(v.Problem, 0))
				})
				if err == nil && !v.OK {
					return &exitError{code: exitFailure}
				}
				return err
			})
		},
	}
}

func (a *app) auditExportCmd() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "export --format json|csv",
		Short: "Write the whole audit log, oldest first, to standard output",
		Args:  args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "json" && format != "csv" {
				return usagef(cmd, "--format %q: use json or csv", format)
			}
			return callOrOpen(cmd.Context(), a, func(svc agent.AuditService) error {
				es, err := allAudit(cmd.Context(), svc)
				if err != nil {
					return err
				}
				if format == "csv" {
					return writeAuditCSV(a.stdout, es)
				}
				return a.printJSON(es)
			})
		},
	}
	cmd.Flags().StringVar(&format, "format", "json", "json or csv")
	return cmd
}

// allAudit pages through the audit log (newest first, by BeforeSeq) and
// returns it oldest first.
func allAudit(ctx context.Context, svc agent.AuditService) ([]agent.AuditEntry, error) {
	var all []agent.AuditEntry
	f := agent.AuditFilter{Limit: pageSize}
	for range maxPages {
		page, err := svc.Audit(ctx, f)
		if err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) < pageSize {
			break
		}
		f.BeforeSeq = page[len(page)-1].Seq
	}
	slices.Reverse(all)
	if all == nil {
		all = []agent.AuditEntry{}
	}
	return all, nil
}

// writeAuditCSV writes one header row then one row per entry; detail is
// its JSON text. Controls and bidi marks in the text columns are written
// as visible escapes (\x1b, \u202e), and a backslash of agent, method or
// result as \\, so a peer's literal "\x1b" is not read as an escaped ESC
// (detail is JSON, where a control is always \u001b already).
func writeAuditCSV(w io.Writer, es []agent.AuditEntry) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"seq", "time", "agent", "method", "result", "detail", "prev_hash", "hash"})
	for _, e := range es {
		detail := ""
		if len(e.Detail) > 0 {
			detail = string(compactJSON(e.Detail))
		}
		_ = cw.Write([]string{
			strconv.FormatInt(e.Seq, 10), e.Time.UTC().Format(time.RFC3339Nano), csvText(e.Agent), csvText(e.Method),
			csvText(e.Result), csvCell(detail), e.PrevHash, e.Hash,
		})
	}
	cw.Flush()
	return cw.Error()
}

// csvCell is peer text made safe for a CSV export: its controls and line
// breaks as visible escapes (an export printed on a terminal must not
// drive it, and a line-based tool must not see a forged row), and a cell
// a spreadsheet would run as a formula (=, +, -, @ first: a peer may name
// its method "=HYPERLINK(…)") starts with a quote, as OWASP advises.
func csvCell(s string) string {
	s = strings.ReplaceAll(escapeHidden(s), "\n", `\x0a`) // escapeHidden keeps newlines
	if s != "" && strings.ContainsRune("=+-@\t", rune(s[0])) {
		s = "'" + s
	}
	return s
}

// csvText is csvCell for a plain text column: its backslashes doubled
// first, so every escape in it is one csvCell wrote.
func csvText(s string) string { return csvCell(strings.ReplaceAll(s, `\`, `\\`)) }

// compactJSON strips insignificant whitespace; invalid JSON is kept as is.
func compactJSON(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return raw
	}
	return buf.Bytes()
}

// sealedText says how far a signature vouches for the chain: rows after
// the last seal rest on the hash chain alone (a seal comes every 10
// minutes of activity and at every clean stop).
func sealedText(v agent.AuditVerification) string {
	switch {
	case v.SealedThrough == 0:
		return "; not sealed yet (aoi seals it with its identity key every 10 minutes of activity and when it stops)"
	case v.Unsealed > 0:
		return fmt.Sprintf("; signed by this agent's key through seq %d; the %d %s after it %s on the chain alone until the next seal (within 10 minutes, or at a clean stop)",
			v.SealedThrough, v.Unsealed, plural(int(v.Unsealed), "row", "rows"), plural(int(v.Unsealed), "rests", "rest"))
	}
	return "; signed by this agent's key up to its newest row"
}
