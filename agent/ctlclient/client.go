// Package ctlclient implements agent.Service over the control socket of an
// aoi running for a data dir, so the CLI, attach-mode TUI and `aoi mcp` use
// the same interface as the in-process core.
package ctlclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

var _ agent.Service = (*Client)(nil)

// Call timeouts. Most control calls are local database work; the ones that
// reach a peer wait for it, and a synchronous task waits for the task.
const (
	callTimeout = 2 * time.Minute
	dialTimeout = 2 * time.Second
)

// Client is agent.Service over the control socket. It is safe for
// concurrent use.
type Client struct {
	dataDir string
	socket  string
	hc      *http.Client
	rpc     *rpc.Client
}

// NoDaemonError says that no aoi answers on the data dir's control socket.
type NoDaemonError struct {
	DataDir string
	Socket  string
	Err     error
}

// Error says what is missing and how to start it: a data dir nobody set
// up (a typo, or no `aoi init` yet) needs init, not serve, which would
// fail next.
func (e *NoDaemonError) Error() string {
	if !e.SetUp() {
		return fmt.Sprintf("no agent is set up in %s (no config or identity there): check the --data-dir, or create one with `aoi init --data-dir %s`",
			e.DataDir, e.DataDir)
	}
	// The interface's command names the data dir too: a plain `aoi`
	// starts on the default one, not the one that has no aoi.
	return fmt.Sprintf("no aoi is running for data dir %s (nothing answers on %s); start one with `aoi serve --data-dir %s`, or run `aoi --data-dir %s` for the interface",
		e.DataDir, e.Socket, e.DataDir, e.DataDir)
}

// SetUp reports whether the data dir holds what `aoi init` makes (a
// config or a certificate; a config may also live elsewhere, given with
// --config): when it does not, the fix is aoi init, not aoi serve.
func (e *NoDaemonError) SetUp() bool {
	for _, name := range []string{config.ConfigFile, filepath.Join("tls", rpc.CertFile)} {
		if _, err := os.Stat(filepath.Join(e.DataDir, name)); err == nil {
			return true
		}
	}
	return false
}

// Unwrap returns the connection error.
func (e *NoDaemonError) Unwrap() error { return e.Err }

// Dial connects to the aoi running for dataDir. If none answers it returns
// a *NoDaemonError saying how to start one.
func Dial(dataDir string) (*Client, error) {
	c := Open(dataDir)
	conn, err := net.DialTimeout("unix", c.socket, dialTimeout)
	if err != nil {
		return nil, &NoDaemonError{DataDir: dataDir, Socket: c.socket, Err: err}
	}
	defer conn.Close()
	if err := rpc.CheckUnixServer(conn, c.socket); err != nil {
		return nil, err
	}
	return c, nil
}

// Open returns a client for dataDir's control socket without checking that
// an aoi answers there: each call fails with a *NoDaemonError until one
// does. `aoi mcp` uses it so the assistant's session starts (and hears how
// to start aoi) even before the core is up.
func Open(dataDir string) *Client {
	socket := agent.SocketPath(dataDir)
	hc := rpc.UnixHTTPClient(socket)
	return &Client{
		dataDir: dataDir,
		socket:  socket,
		hc:      hc,
		// One attempt: a control call must not be repeated behind the
		// owner's back, and a local socket that fails means the daemon
		// is gone. Each call sets its own deadline (see call).
		rpc: rpc.NewClient(rpc.ControlURL, hc, rpc.ClientOptions{
			Timeout: 24 * time.Hour, MaxAttempts: 1, Peer: "the local aoi",
		}),
	}
}

// Close releases idle connections.
func (c *Client) Close() error {
	c.hc.CloseIdleConnections()
	return nil
}

// call invokes a ctl method within timeout and turns a lost connection into
// a NoDaemonError.
func (c *Client) call(ctx context.Context, timeout time.Duration, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if params == nil {
		params = struct{}{}
	}
	err := c.rpc.Call(ctx, method, params, result)
	var te *rpc.TransportError
	if errors.Is(err, rpc.ErrForeignSocket) {
		return err // someone else's socket: not a daemon to start
	}
	if errors.As(err, &te) && te.Status == 0 && ctx.Err() == nil {
		return &NoDaemonError{DataDir: c.dataDir, Socket: c.socket, Err: err}
	}
	var re *rpc.Error
	if errors.As(err, &re) {
		if d, ok := re.Data.(map[string]any); ok {
			kind, _ := d["kind"].(string)
			return errs.WithKind(kind, err) // errors.Is(err, agent.ErrNotFound) as in process
		}
	}
	return err
}

// Status implements agent.Service.
func (c *Client) Status(ctx context.Context) (st agent.Status, err error) {
	err = c.call(ctx, callTimeout, agent.CtlStatus, nil, &st)
	return st, err
}

// Peers implements agent.Service.
func (c *Client) Peers(ctx context.Context) (ps []agent.Peer, err error) {
	err = c.call(ctx, callTimeout, agent.CtlPeers, nil, &ps)
	return ps, err
}

// Discover implements agent.Service.
func (c *Client) Discover(ctx context.Context) (ps []agent.Peer, err error) {
	err = c.call(ctx, callTimeout, agent.CtlDiscover, nil, &ps)
	return ps, err
}

// Trust implements agent.Service.
func (c *Client) Trust(ctx context.Context, req agent.TrustRequest) error {
	return c.call(ctx, callTimeout, agent.CtlTrust, req, nil)
}

// Refuse implements agent.Service.
func (c *Client) Refuse(ctx context.Context, req agent.RefuseRequest) error {
	return c.call(ctx, callTimeout, agent.CtlRefuse, req, nil)
}

// Ask implements agent.Service.
func (c *Client) Ask(ctx context.Context, req agent.AskRequest) (res agent.AskResult, err error) {
	err = c.call(ctx, callTimeout+seconds(req.TimeoutSec), agent.CtlAsk, req, &res)
	return res, err
}

// Queries implements agent.Service.
func (c *Client) Queries(ctx context.Context, f agent.QueryFilter) (qs []agent.Query, err error) {
	err = c.call(ctx, callTimeout, agent.CtlQueries, f, &qs)
	return qs, err
}

// Answer implements agent.Service.
func (c *Client) Answer(ctx context.Context, req agent.AnswerRequest) error {
	return c.call(ctx, callTimeout, agent.CtlAnswer, req, nil)
}

// Decline implements agent.Service.
func (c *Client) Decline(ctx context.Context, req agent.DeclineRequest) error {
	return c.call(ctx, callTimeout, agent.CtlDecline, req, nil)
}

// Release implements agent.Service.
func (c *Client) Release(ctx context.Context, req agent.ReleaseRequest) error {
	return c.call(ctx, callTimeout, agent.CtlRelease, req, nil)
}

// SetFocus implements agent.Service.
func (c *Client) SetFocus(ctx context.Context, req agent.FocusRequest) error {
	return c.call(ctx, callTimeout, agent.CtlFocus, req, nil)
}

// SendMessage implements agent.Service.
func (c *Client) SendMessage(ctx context.Context, req agent.SendMessageRequest) (out agent.SentMessage, err error) {
	err = c.call(ctx, callTimeout, agent.CtlSendMessage, req, &out)
	return out, err
}

// Inbox implements agent.Service. A page from a running aoi that did not
// know one of f's options is an *agent.OlderAgentError, not a page
// that reads right and is not.
func (c *Client) Inbox(ctx context.Context, f agent.InboxFilter) (out agent.InboxPage, err error) {
	if err = c.call(ctx, callTimeout, agent.CtlInbox, f, &out); err != nil {
		return out, err
	}
	if ignored := f.IgnoredBy(out.Applied); len(ignored) > 0 {
		return agent.InboxPage{}, &agent.OlderAgentError{Options: ignored}
	}
	out.Applied = nil // the exchange's business, not the page's
	return out, nil
}

// CoordTasks implements agent.Service.
func (c *Client) CoordTasks(ctx context.Context, req agent.CoordTasksRequest) (out []agent.CoordTask, err error) {
	err = c.call(ctx, callTimeout, agent.CtlCoordTasks, req, &out)
	return out, err
}

// MarkMessagesRead implements agent.Service.
func (c *Client) MarkMessagesRead(ctx context.Context, req agent.MarkReadRequest) error {
	return c.call(ctx, callTimeout, agent.CtlMarkRead, req, nil)
}

// Messages implements agent.Service.
func (c *Client) Messages(ctx context.Context, req agent.MessagesRequest) (ms []agent.Message, err error) {
	err = c.call(ctx, callTimeout, agent.CtlMessages, req, &ms)
	return ms, err
}

// Note implements agent.Service.
func (c *Client) Note(ctx context.Context, req agent.NoteRequest) (agent.NoteSaved, error) {
	var out agent.NoteSaved
	return out, c.call(ctx, callTimeout, agent.CtlNote, req, &out)
}

// PromptHistory implements agent.Service.
func (c *Client) PromptHistory(ctx context.Context) ([]string, error) {
	var out []string
	return out, c.call(ctx, callTimeout, agent.CtlPromptLines, nil, &out)
}

// RememberPrompt implements agent.Service.
func (c *Client) RememberPrompt(ctx context.Context, req agent.PromptLine) error {
	return c.call(ctx, callTimeout, agent.CtlPromptAdd, req, nil)
}

// Outbox implements agent.Service.
func (c *Client) Outbox(ctx context.Context) ([]agent.OutboxEntry, error) {
	var out []agent.OutboxEntry
	return out, c.call(ctx, callTimeout, agent.CtlOutbox, nil, &out)
}

// DropOutbox implements agent.Service.
func (c *Client) DropOutbox(ctx context.Context, req agent.OutboxDropRequest) error {
	return c.call(ctx, callTimeout, agent.CtlOutboxDrop, req, nil)
}

// RetryOutbox implements agent.Service.
func (c *Client) RetryOutbox(ctx context.Context, req agent.OutboxRetryRequest) (agent.OutboxRetryResult, error) {
	var out agent.OutboxRetryResult
	return out, c.call(ctx, callTimeout, agent.CtlOutboxRetry, req, &out)
}

// Notes implements agent.Service.
func (c *Client) Notes(ctx context.Context, req agent.NotesRequest) ([]agent.Note, error) {
	var out []agent.Note
	return out, c.call(ctx, callTimeout, agent.CtlNotes, req, &out)
}

// DeleteNote implements agent.Service.
func (c *Client) DeleteNote(ctx context.Context, req agent.DeleteNoteRequest) error {
	return c.call(ctx, callTimeout, agent.CtlDeleteNote, req, nil)
}

// ReportEvent implements agent.Service.
func (c *Client) ReportEvent(ctx context.Context, ev agent.ReportedEvent) error {
	return c.call(ctx, callTimeout, agent.CtlReportEvent, ev, nil)
}

// Snapshot implements agent.Service.
func (c *Client) Snapshot(ctx context.Context) (snap json.RawMessage, err error) {
	err = c.call(ctx, callTimeout, agent.CtlSnapshot, nil, &snap)
	return snap, err
}

// RequestTask implements agent.Service. A synchronous request waits as long
// as the task may run.
func (c *Client) RequestTask(ctx context.Context, req agent.TaskRequest) (t agent.TaskTicket, err error) {
	timeout := callTimeout
	if req.Sync {
		timeout += seconds(req.TimeoutSec)
	}
	err = c.call(ctx, timeout, agent.CtlTaskRequest, req, &t)
	return t, err
}

// RemoteTaskStatus implements agent.Service.
func (c *Client) RemoteTaskStatus(ctx context.Context, ref agent.RemoteTaskRef) (t agent.Task, err error) {
	err = c.call(ctx, callTimeout, agent.CtlTaskStatus, ref, &t)
	return t, err
}

// CancelRemoteTask implements agent.Service.
func (c *Client) CancelRemoteTask(ctx context.Context, ref agent.RemoteTaskRef) error {
	return c.call(ctx, callTimeout, agent.CtlTaskCancel, ref, nil)
}

// Approvals implements agent.Service.
func (c *Client) Approvals(ctx context.Context, f agent.ApprovalFilter) (as []agent.Approval, err error) {
	err = c.call(ctx, callTimeout, agent.CtlApprovals, f, &as)
	return as, err
}

// Approve implements agent.Service.
func (c *Client) Approve(ctx context.Context, req agent.ApproveRequest) error {
	return c.call(ctx, callTimeout, agent.CtlApprove, req, nil)
}

// Reject implements agent.Service.
func (c *Client) Reject(ctx context.Context, req agent.RejectRequest) error {
	return c.call(ctx, callTimeout, agent.CtlReject, req, nil)
}

// Tasks implements agent.Service.
func (c *Client) Tasks(ctx context.Context, f agent.TaskFilter) (ts []agent.Task, err error) {
	err = c.call(ctx, callTimeout, agent.CtlTasks, f, &ts)
	return ts, err
}

// Audit implements agent.Service.
func (c *Client) Audit(ctx context.Context, f agent.AuditFilter) (es []agent.AuditEntry, err error) {
	err = c.call(ctx, callTimeout, agent.CtlAudit, f, &es)
	return es, err
}

// VerifyAudit implements agent.Service.
func (c *Client) VerifyAudit(ctx context.Context) (v agent.AuditVerification, err error) {
	err = c.call(ctx, 10*time.Minute, agent.CtlAuditVerify, nil, &v)
	return v, err
}

// Reload implements agent.Service.
func (c *Client) Reload(ctx context.Context) (rep agent.ReloadReport, err error) {
	err = c.call(ctx, callTimeout, agent.CtlReload, nil, &rep)
	return rep, err
}

func seconds(n int) time.Duration { return time.Duration(max(n, 0)) * time.Second }
