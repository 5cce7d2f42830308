package tailnet

import (
	"errors"
	"fmt"
	"strings"
)

// Reasons joining the tailnet can fail; Listen's errors wrap one of them so
// callers can tell them apart with errors.Is.
var (
	// ErrAuthKey: the control server rejected the auth key (bad, expired,
	// already used, or revoked).
	ErrAuthKey = errors.New("the tailnet rejected the auth key")
	// ErrControlUnreachable: no answer from the coordination server.
	ErrControlUnreachable = errors.New("control server unreachable")
	// ErrNeedsLogin: the node has no usable auth key and waits for a login.
	ErrNeedsLogin = errors.New("tailnet node needs to log in")
	// ErrNeedsApproval: the node joined but an admin must approve it.
	ErrNeedsApproval = errors.New("tailnet node needs approval by an admin")
	// ErrUpTimeout: the node did not come up in time for another reason.
	ErrUpTimeout = errors.New("tailnet node did not come up in time")
)

// backendError turns a message from the control server (seen as tsnet's
// "backend: ..." error) into one that says what to do.
func backendError(msg string) error {
	lower := strings.ToLower(msg)
	if strings.Contains(lower, "key") || strings.Contains(lower, "expired") {
		return fmt.Errorf("%w: %s; create a new auth key in the tailnet's admin console (or Headscale) and set TS_AUTHKEY, or remove the node state to rejoin", ErrAuthKey, msg)
	}
	return fmt.Errorf("tailnet: the control server refused the login: %s; check the auth key and network.tailscale.control_url", msg)
}

func needsLoginError(authURL string) error {
	if authURL == "" {
		return fmt.Errorf("%w: no auth key was given; set TS_AUTHKEY (or network.tailscale.auth_key) to a key from the tailnet's admin console", ErrNeedsLogin)
	}
	return fmt.Errorf("%w: open %s to add this node to the tailnet, then start aoi again, or set TS_AUTHKEY to an auth key", ErrNeedsLogin, authURL)
}

func needsApprovalError(hostname string) error {
	return fmt.Errorf("%w: ask a tailnet admin to approve device %q in the admin console (Machines), then start aoi again; pre-approved auth keys avoid this step", ErrNeedsApproval, hostname)
}

func unreachableError(controlURL string, cause error) error {
	return fmt.Errorf("%w: %s: %v; check network.tailscale.control_url and that this machine can reach it", ErrControlUnreachable, controlURL, cause)
}
