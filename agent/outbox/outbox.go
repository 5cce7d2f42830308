// Package outbox delivers stored notifications and messages to peers,
// retrying with exponential back-off (1 s, 2 s, 4 s … capped) until
// delivered or expired. Entries are written in the same transaction as the
// change they report, so nothing is lost across a crash; receivers drop
// duplicates by the notify id, so a delivery that succeeded just before a
// crash is not shown twice.
package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/internal/backoff"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Outbox is the delivery loop. Set the fields, then Run it; Wake and
// Deliver are safe to call meanwhile.
type Outbox struct {
	DB     *store.DB
	Log    *slog.Logger
	Now    func() time.Time
	Config func() config.Outbox // read at every retry, so reloads apply
	// Send delivers one entry to its peer; nil means the peer
	// acknowledged (stored) it.
	Send func(ctx context.Context, e store.OutboxRecord) error
	// Failed learns of every failed delivery (the core marks a peer that
	// gave no answer at all offline, and tells the owner when an answer
	// they sent waits).
	Failed func(ctx context.Context, e store.OutboxRecord, err error)
	// Delivered learns of every delivered entry (the core tells front
	// ends an answer that waited has gone). Optional.
	Delivered func(ctx context.Context, e store.OutboxRecord)
	// Refused learns when a peer first refuses an entry (the core tells
	// the owner): the entry is still retried until it expires, since the
	// peer's owner may change trust or config meanwhile, but nobody should
	// learn of it only from the log. Once per entry: a peer that words its
	// refusal differently each time must not ring the owner at every retry.
	Refused func(ctx context.Context, e store.OutboxRecord, err error)
	// Changed learns, once it is stored, of every change to what waits:
	// an entry delivered or expired, or one that failed for the first
	// time or was first refused (state says which). Later failures of an
	// entry already waiting change nothing a person counts. Optional.
	Changed func(e store.OutboxRecord, state string)
	// Redact makes a peer's words (its refusal reason) safe to log and
	// store with the entry: the core shows them as a reader would see
	// them and redacts them (nil: as they are).
	Redact func(string) string
	// Clock is what Run waits on until the next entry is due (nil: the
	// wall clock; tests pass a backoff.Fake, with Now its Now).
	Clock backoff.Clock
	// Withhold is asked before every try whether an entry may still go:
	// what was allowed when it was queued may not be by the time its
	// peer is back (the owner tightened the ACL meanwhile). A Withholding
	// with a reason keeps the entry from going: it is dropped and
	// audited in one transaction with the Withholding's own change.
	// Optional.
	Withhold func(ctx context.Context, e store.OutboxRecord) Withholding

	kick chan struct{}
	t    *turns
}

// turns is which peers are in a delivery turn (since when), and waits for
// the turns.
type turns struct {
	mu   sync.Mutex
	busy map[string]time.Time
	// skipped: a peer with entries due was passed over (in a turn, or
	// every slot taken); the next turn to end kicks the loop for it.
	skipped bool
	// back holds the peers seen online again since the loop last
	// looked (PeerBack): each gets a turn though nothing of theirs is due.
	back map[string]bool
	wg   sync.WaitGroup
}

// New returns an outbox with its fields set.
func New(o Outbox) *Outbox {
	o.kick = make(chan struct{}, 1)
	o.t = &turns{busy: map[string]time.Time{}}
	return &o
}

// Wake makes the loop look at the queue now (new entry, peer back online).
func (o *Outbox) Wake() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// Notify is the aoi.notify entry id for a peer, due now, to be stored
// with tx.EnqueueOutbox in the transaction that made the change it reports.
func Notify(id, from, to, event, relatedID string, data json.RawMessage, now time.Time, expiry time.Duration) store.OutboxRecord {
	params := wire.NotifyParams{ID: id, From: from, To: to, Event: event, RelatedQueryID: relatedID,
		Data: data, Timestamp: now}
	b, err := json.Marshal(params)
	if err != nil {
		panic(fmt.Sprintf("marshal notify params: %v", err)) // a plain struct of ours
	}
	return store.OutboxRecord{ID: id, To: to, Method: wire.MethodNotify, Params: b,
		NextAttemptAt: now, CreatedAt: now, ExpiresAt: now.Add(expiry)}
}

// Run delivers due entries until ctx ends. Each peer's turn runs on its
// own goroutine, and the loop does not wait for the slowest: a peer whose
// calls stall until they time out holds up only its own entries.
func (o *Outbox) Run(ctx context.Context) {
	clock := o.Clock
	if clock == nil {
		clock = backoff.Real
	}
	defer o.t.wg.Wait()
	for {
		wait := o.untilNext(ctx)
		if launched, onlyBusy := o.startDue(ctx); launched == 0 && onlyBusy {
			// What is due belongs to peers still being served: their
			// turns kick the loop when they end.
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-o.kick:
		case <-clock.After(wait):
		}
	}
}

// untilNext is how long to sleep before the next entry is due (at most 30 s).
func (o *Outbox) untilNext(ctx context.Context) time.Duration {
	const maxIdle = 30 * time.Second
	next, ok, err := o.DB.NextOutboxAt(ctx)
	if err != nil || !ok {
		return maxIdle
	}
	d := next.Sub(o.Now())
	switch {
	case d < 0:
		return 0
	case d > maxIdle:
		return maxIdle
	}
	return d
}

// Delivery turns: each peer's due entries go in order on their own
// goroutine (at most peersAtOnce peers at a time), so a peer that stalls
// every call until its timeout delays only its own entries; a turn takes
// at most perPeerTurn entries of any one peer. A turn older than
// stalledAfter (a call to a peer on the tailnet takes milliseconds) no
// longer holds a slot: it is waiting out a timeout, and eight peers that
// stall must not keep a ninth, answering one, waiting as long. maxTurns
// still bounds the goroutines and connections stalled peers can hold.
const (
	peersAtOnce  = 8
	perPeerTurn  = 20
	stalledAfter = 2 * time.Second
	maxTurns     = 64
)

// deliverDue tries the due entries once, peer by peer in parallel, and
// waits for every turn to end (tests; Run does not wait).
func (o *Outbox) deliverDue(ctx context.Context) {
	o.startDue(ctx)
	o.t.wg.Wait()
}

// startDue starts a turn for each peer with entries due that is not in a
// turn already (at most peersAtOnce at a time). It reports how many it
// started, and whether everything due belongs to peers still in a turn.
func (o *Outbox) startDue(ctx context.Context) (launched int, onlyBusy bool) {
	due, err := o.DB.DueOutboxFair(ctx, o.Now(), perPeerTurn, 200)
	if err != nil {
		o.Log.Error("read outbox", "component", "outbox", "err", err)
		return 0, false
	}
	var peers []string
	seen := map[string]bool{}
	for _, e := range due {
		if !seen[e.To] {
			seen[e.To] = true
			peers = append(peers, e.To)
		}
	}
	back := o.takeBack()
	for _, peer := range back {
		if !seen[peer] {
			seen[peer] = true
			peers = append(peers, peer)
		}
	}
	for _, peer := range peers {
		if !o.claim(peer) {
			if slices.Contains(back, peer) {
				o.markBack(peer) // the turn that ends kicks the loop: try again then
			}
			continue
		}
		launched++
		o.t.wg.Add(1)
		go o.turn(ctx, peer)
	}
	return launched, len(peers) > 0 && launched == 0
}

// PeerBack gives peer, just seen online again, a delivery turn now: what
// waits out a back-off from while it was away (a question, an answer, a
// note) goes at once, in the order it was queued, instead of up to a
// minute later when the back-off ends.
func (o *Outbox) PeerBack(peer string) {
	o.markBack(peer)
	o.Wake()
}

// maxBack bounds the peers remembered as back before the loop looks.
const maxBack = 256

func (o *Outbox) markBack(peer string) {
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	if o.t.back == nil {
		o.t.back = map[string]bool{}
	}
	if len(o.t.back) < maxBack {
		o.t.back[peer] = true
	}
}

// takeBack returns and forgets the peers marked back.
func (o *Outbox) takeBack() []string {
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	peers := slices.Sorted(maps.Keys(o.t.back))
	clear(o.t.back)
	return peers
}

// claim marks peer as in a turn, unless it is already or every slot is
// taken (by turns younger than stalledAfter, or maxTurns in all).
func (o *Outbox) claim(peer string) bool {
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	now := time.Now() // a call's real duration, whatever o.Now says
	if _, in := o.t.busy[peer]; in || len(o.t.busy) >= maxTurns || o.t.fresh(now) >= peersAtOnce {
		o.t.skipped = true
		return false
	}
	o.t.busy[peer] = now
	return true
}

// fresh counts the turns younger than stalledAfter. The caller holds mu.
func (t *turns) fresh(now time.Time) int {
	n := 0
	for _, since := range t.busy {
		if now.Sub(since) < stalledAfter {
			n++
		}
	}
	return n
}

// turn delivers one peer's due entries in order, read once the peer is
// claimed (a list read before could hold an entry a turn that just ended
// has already rescheduled). Its first failure ends it: the other entries
// wait for a later turn instead of each waiting out the same timeout. When
// a peer was passed over meanwhile, the loop is kicked as it ends.
func (o *Outbox) turn(ctx context.Context, peer string) {
	defer o.t.wg.Done()
	defer o.release(peer)
	entries, err := o.DB.DueOutboxFor(ctx, peer, o.Now(), perPeerTurn)
	if err != nil {
		o.Log.Error("read outbox", "component", "outbox", "agent_to", peer, "err", err)
		return
	}
	for _, e := range entries {
		if ctx.Err() != nil {
			return
		}
		var withheld *WithheldError
		if err := o.Deliver(ctx, e); err != nil && !errors.Is(err, ErrExpired) && !errors.As(err, &withheld) {
			return
		}
	}
}

// ErrExpired is Deliver's error for an entry past its expiry.
var ErrExpired = errors.New("outbox: the message expired before the peer took it")

// WithheldError is Deliver's error for an entry Withhold kept back.
type WithheldError struct{ Why string }

func (e *WithheldError) Error() string {
	return "outbox: kept back, since it may no longer go to its peer: " + e.Why
}

// Withholding is Withhold's verdict on one entry: an empty Why lets it go.
type Withholding struct {
	Why string
	// Also runs in the transaction that drops the entry (the core puts
	// the question whose answer it was back before the owner), and Then
	// once that is stored (the core tells the owner). Optional.
	Also func(tx *store.Tx) error
	Then func()
}

// Deliver sends one entry and records the outcome: nil when the peer
// acknowledged it, else why not (the entry stays queued for a retry unless
// it expired).
func (o *Outbox) Deliver(ctx context.Context, e store.OutboxRecord) error {
	if o.Now().After(e.ExpiresAt) {
		o.expire(ctx, e)
		return ErrExpired
	}
	if o.Withhold != nil {
		if w := o.Withhold(ctx, e); w.Why != "" {
			o.withhold(ctx, e, w)
			return &WithheldError{Why: w.Why}
		}
	}
	err := o.Send(ctx, e)
	if err == nil {
		werr := o.DB.Write(ctx, func(tx *store.Tx) error { return tx.MarkOutboxDelivered(e.ID, o.Now()) })
		if werr != nil {
			o.Log.Error("mark delivered", "component", "outbox", "id", e.ID, "err", werr)
		}
		o.Log.Info("delivered", "component", "outbox", "agent_to", e.To, "id", e.ID, "attempts", e.Attempts+1)
		o.changed(e, store.OutboxDelivered)
		if o.Delivered != nil {
			o.Delivered(ctx, e)
		}
		return nil
	}
	if o.Failed != nil {
		o.Failed(ctx, e, err)
	}
	next := o.Now().Add(o.backoff(e.Attempts))
	var answered *rpc.Error
	refused := errors.As(err, &answered) // the peer answered: it refuses, it is not away
	if refused && answered.Code != rpc.CodeRateLimit && answered.Code != rpc.CodeAgentBusy {
		// A refusal changes when the peer's owner acts, not in a minute:
		// retried every refusedBackoffs caps of the back-off (10 minutes
		// by default), not at the cap (the walk's refused message left a
		// refusal row and a warning a minute, for a day). Busy and
		// rate-limited peers are retried as before.
		next = o.Now().Add(refusedBackoffs * o.Config().MaxBackoff())
	}
	why := o.words(err)
	if refused {
		o.Log.Warn("delivery refused by the peer; will retry until it expires", "component", "outbox", "agent_to", e.To, "id", e.ID, "next", next, "err", why)
		if o.Refused != nil && !e.Refused {
			o.Refused(ctx, e, err)
		}
	} else {
		o.Log.Info("delivery failed; will retry", "component", "outbox", "agent_to", e.To, "id", e.ID, "next", next, "err", why)
	}
	if werr := o.DB.Write(ctx, func(tx *store.Tx) error { return tx.RescheduleOutbox(e.ID, next, why, refused) }); werr != nil {
		o.Log.Error("reschedule", "component", "outbox", "id", e.ID, "err", werr)
	}
	switch {
	case refused && !e.Refused:
		o.changed(e, "refused")
	case e.Attempts == 0:
		o.changed(e, "waiting")
	}
	return err
}

// changed calls the Changed hook, when there is one.
func (o *Outbox) changed(e store.OutboxRecord, state string) {
	if o.Changed != nil {
		o.Changed(e, state)
	}
}

// refusedBackoffs is how many caps of the back-off an entry the peer
// refused (not busy, not rate-limited) waits before its next try.
const refusedBackoffs = 10

// maxWhy bounds what is kept of why a delivery failed.
const maxWhy = 1024

// words is why a delivery failed, as it is logged and stored: the
// peer's words made safe (Redact), then cut to maxWhy bytes. Redacted
// whole before the cut: a cut first could leave the part of a secret the
// redactor no longer recognises (the client bounds an answer at 16 MiB).
func (o *Outbox) words(err error) string {
	s := peerWords(err)
	if o.Redact != nil {
		s = o.Redact(s)
	}
	if len(s) > maxWhy {
		s = clip(s, maxWhy) + "…"
	}
	return s
}

// peerWords is err in words a person reads: a peer's refusal is its
// reason, without the JSON-RPC code and protocol message in front
// (`aoi outbox` showed "rpc error -32001 (Permission denied): agent …"
// where the reason says it all); an answer without a reason is its
// message; a call nothing answered is where it went and what to check,
// without Go's call chain ("calling aoi.query on https://…: Post …").
func peerWords(err error) string {
	var unanswered *rpc.TransportError
	if errors.As(err, &unanswered) {
		return unanswered.Host() + ": " + unanswered.Advice()
	}
	var answered *rpc.Error
	if !errors.As(err, &answered) {
		return err.Error()
	}
	if r := answered.Reason(); r != "" {
		return r
	}
	return answered.Message
}

// clip is s cut to at most n bytes, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// backoff is initial·2^attempts, capped.
func (o *Outbox) backoff(attempts int) time.Duration {
	cfg := o.Config()
	return backoff.Policy{Base: cfg.InitialBackoff(), Max: cfg.MaxBackoff()}.Delay(attempts)
}

// expire gives up on an entry and audits it.
func (o *Outbox) expire(ctx context.Context, e store.OutboxRecord) {
	err := o.DB.Write(ctx, func(tx *store.Tx) error {
		if err := tx.ExpireOutbox(e.ID); err != nil {
			return err
		}
		if e.Method == wire.MethodQuery || e.Method == wire.MethodTaskExecute {
			// A question or task request queued for an offline peer: its
			// ask no longer waits for an answer.
			why := e.To + " was not reached before the request expired"
			if err := tx.SetAskResult(e.ID, wire.MustJSON(map[string]string{"error": why})); err != nil {
				return err
			}
		}
		_, err := tx.AppendAudit(e.To, "outbox.expired", "TIMEOUT", map[string]any{"id": e.ID, "attempts": e.Attempts, "last_error": e.LastError})
		return err
	})
	if err != nil {
		o.Log.Error("expire outbox", "component", "outbox", "id", e.ID, "err", err)
		return
	}
	o.changed(e, store.OutboxExpired)
}

// withhold drops an entry Withhold kept back, audited with why.
func (o *Outbox) withhold(ctx context.Context, e store.OutboxRecord, w Withholding) {
	err := o.DB.Write(ctx, func(tx *store.Tx) error {
		if err := tx.WithholdOutbox(e.ID); err != nil {
			return err
		}
		if w.Also != nil {
			if err := w.Also(tx); err != nil {
				return err
			}
		}
		_, err := tx.AppendAudit(e.To, "outbox.withheld", "PERMISSION_DENIED", map[string]any{"id": e.ID, "why": w.Why})
		return err
	})
	if err != nil {
		o.Log.Error("withhold outbox entry", "component", "outbox", "id", e.ID, "err", err)
		return
	}
	o.Log.Warn("not delivered: it may no longer go to its peer", "component", "outbox", "agent_to", e.To, "id", e.ID, "why", w.Why)
	o.changed(e, store.OutboxWithheld)
	if w.Then != nil {
		w.Then()
	}
}

// ErrNotWaiting is RetryNow's error for an id nothing waits to be sent
// under (delivered, expired, withdrawn, or never queued).
var ErrNotWaiting = errors.New("outbox: nothing waits to be sent under that id")

// ErrInTurn is RetryNow's error while a delivery turn to the entry's peer
// is under way: that turn tries the entry itself.
var ErrInTurn = errors.New("outbox: a delivery to that peer is under way")

// RetryNow tries one waiting entry at once, whatever its back-off says, and
// returns it as it was read with the outcome of the try (nil: the peer
// took it). It takes the peer's delivery turn, so the loop does not send
// the same entry in the same moment.
func (o *Outbox) RetryNow(ctx context.Context, id string) (store.OutboxRecord, error) {
	e, found, err := o.DB.Outbox(ctx, id)
	if err != nil {
		return store.OutboxRecord{}, err
	}
	if !found || e.State != store.OutboxPending {
		return e, ErrNotWaiting
	}
	if !o.claimNow(e.To) {
		return e, ErrInTurn
	}
	defer o.release(e.To)
	return e, o.Deliver(ctx, e)
}

// claimNow marks peer as in a turn unless it already is; unlike claim it
// does not count the slots: the owner asked for this one try.
func (o *Outbox) claimNow(peer string) bool {
	o.t.mu.Lock()
	defer o.t.mu.Unlock()
	if _, in := o.t.busy[peer]; in {
		return false
	}
	o.t.busy[peer] = time.Now()
	return true
}

// release ends a peer's turn, kicking the loop when a peer was
// passed over meanwhile.
func (o *Outbox) release(peer string) {
	o.t.mu.Lock()
	delete(o.t.busy, peer)
	kick := o.t.skipped
	o.t.skipped = false
	o.t.mu.Unlock()
	if kick {
		o.Wake()
	}
}
