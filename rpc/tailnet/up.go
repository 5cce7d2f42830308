package tailnet

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"tailscale.com/client/local"
	"tailscale.com/ipn"
)

// How long a login-blocking state (an auth URL, or waiting for an admin) must
// last before Up gives up on it: even with a good auth key the backend
// passes briefly through NeedsLogin.
const blockedSettle = 1500 * time.Millisecond

// How often Up looks at the backend state while joining.
const upPoll = 100 * time.Millisecond

// Up joins the tailnet within the configured UpTimeout and waits until the
// node is Running and connected to its home DERP relay (so the first dial
// does not race the relay handshake). Its errors wrap ErrAuthKey,
// ErrControlUnreachable, ErrNeedsLogin, ErrNeedsApproval or ErrUpTimeout.
func (t *Transport) Up(ctx context.Context) error {
	if err := t.start(); err != nil {
		return err
	}
	lc, err := t.localClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, t.cfg.UpTimeout)
	defer cancel()

	var upErr error
	upDone := make(chan struct{})
	go func() {
		defer close(upDone)
		_, upErr = t.srv.Up(ctx)
	}()
	if err := t.awaitUp(ctx, lc, upDone, &upErr); err != nil {
		cancel()
		<-upDone // tsnet's Up returns promptly once ctx is cancelled
		return err
	}
	t.awaitHomeDERP(ctx)
	return nil
}

// awaitUp waits for tsnet's Up to finish while watching for states that
// will not resolve by waiting: a login URL, an admin approval, or a control
// server that does not answer. upErr is read only after upDone is closed.
func (t *Transport) awaitUp(ctx context.Context, lc *local.Client, upDone <-chan struct{}, upErr *error) error {
	tick := time.NewTicker(upPoll)
	defer tick.Stop()
	probeAt := time.Now().Add(min(3*time.Second, t.cfg.UpTimeout/2))
	probed := false
	var blockedSince time.Time
	for {
		select {
		case <-upDone:
			if *upErr == nil {
				return nil
			}
			return t.upFailed(ctx, lc, *upErr)
		case <-tick.C:
		}
		st, err := lc.StatusWithoutPeers(ctx)
		if err != nil {
			continue // ctx expiry is reported by upErr
		}
		if blocking := loginBlocked(st.BackendState, st.AuthURL); blocking {
			if blockedSince.IsZero() {
				blockedSince = time.Now()
			}
			if time.Since(blockedSince) >= blockedSettle {
				return t.stateError(st.BackendState, st.AuthURL)
			}
		} else {
			blockedSince = time.Time{}
		}
		if !probed && time.Now().After(probeAt) && st.BackendState != ipn.Running.String() {
			probed = true
			if err := probeControl(ctx, t.controlURL()); err != nil {
				return unreachableError(t.controlURL(), err)
			}
		}
	}
}

// loginBlocked reports whether the backend waits for a person.
func loginBlocked(state, authURL string) bool {
	switch state {
	case ipn.NeedsMachineAuth.String():
		return true
	case ipn.NeedsLogin.String():
		return authURL != ""
	}
	return false
}

// stateError says what to do about a backend state that blocks joining.
func (t *Transport) stateError(state, authURL string) error {
	if state == ipn.NeedsMachineAuth.String() {
		return needsApprovalError(t.cfg.Hostname)
	}
	return needsLoginError(authURL)
}

// upFailed explains an error from tsnet's Up.
func (t *Transport) upFailed(ctx context.Context, lc *local.Client, err error) error {
	if msg, ok := strings.CutPrefix(err.Error(), "tsnet.Up: backend: "); ok {
		return backendError(msg)
	}
	if ctx.Err() == nil {
		return fmt.Errorf("tailnet: join as %s: %w", t.cfg.Hostname, err)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return fmt.Errorf("tailnet: join as %s: %w", t.cfg.Hostname, ctx.Err())
	}
	// Timed out: say where it got stuck.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if st, serr := lc.StatusWithoutPeers(sctx); serr == nil {
		if loginBlocked(st.BackendState, st.AuthURL) || (st.BackendState == ipn.NeedsLogin.String() && t.cfg.AuthKey == "") {
			return t.stateError(st.BackendState, st.AuthURL)
		}
		if perr := probeControl(sctx, t.controlURL()); perr != nil {
			return unreachableError(t.controlURL(), perr)
		}
		return fmt.Errorf("%w: the control server %s answers, but the node is still %s after %v; check that it is a Tailscale or Headscale server, and aoi's log file", ErrUpTimeout, t.controlURL(), st.BackendState, t.cfg.UpTimeout)
	}
	return fmt.Errorf("%w after %v; check the network and aoi's log file", ErrUpTimeout, t.cfg.UpTimeout)
}

func (t *Transport) controlURL() string {
	if t.cfg.ControlURL != "" {
		return t.cfg.ControlURL
	}
	return ipn.DefaultControlURL
}

// probeControl asks the control server for its public key, the first thing
// every Tailscale client fetches; any HTTP answer means it is reachable.
func probeControl(ctx context.Context, controlURL string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(controlURL, "/")+"/key?v=1", nil)
	if err != nil {
		return err
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// awaitHomeDERP waits (bounded by ctx, at most 15 s) until the node has a
// home DERP region and has heard from it. Without that, a peer's first
// packets can be dropped by the relay. If it never happens the node may
// still reach peers directly, so this only logs.
func (t *Transport) awaitHomeDERP(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	sys := t.srv.Sys()
	health, ms := sys.HealthTracker.Get(), sys.MagicSock.Get()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if r := ms.GetLastNetcheckReport(ctx); r != nil && r.PreferredDERP != 0 &&
			!health.GetDERPRegionReceivedTime(r.PreferredDERP).IsZero() {
			return
		}
		select {
		case <-ctx.Done():
			t.logf("tailnet: no home DERP relay yet; continuing (peers may be reachable directly)")
			return
		case <-tick.C:
		}
	}
}

func (t *Transport) localClient() (*local.Client, error) {
	if err := t.start(); err != nil {
		return nil, err
	}
	lc, err := t.srv.LocalClient()
	if err != nil {
		return nil, fmt.Errorf("tailnet: local client: %w", err)
	}
	return lc, nil
}

func (t *Transport) logf(format string, args ...any) {
	if t.cfg.Logf != nil {
		t.cfg.Logf(format, args...)
	}
}
