package agent

import "github.com/aoi-protocol/aoi/agent/errs"

// The kinds of error Service methods return (agent/errs), for errors.Is.
// They hold in process and over the control socket (ctlclient restores
// them), so a front end can tell "no such query" from "not allowed"
// without reading the text.
var (
	ErrInvalid     = errs.ErrInvalid
	ErrDenied      = errs.ErrDenied
	ErrNotFound    = errs.ErrNotFound
	ErrUnknownPeer = errs.ErrUnknownPeer
	ErrConflict    = errs.ErrConflict
)
