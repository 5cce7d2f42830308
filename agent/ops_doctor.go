package agent

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/aoi-protocol/aoi/agent/peers"
	"github.com/aoi-protocol/aoi/agent/task"
	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// Doctor check outcomes.
const (
	CheckOK   = "ok"
	CheckWarn = "warn" // worth knowing, not a fault of this machine
	CheckFail = "fail"
)

// DoctorCheck is one line of `aoi doctor`.
type DoctorCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// DoctorReport is the checks the running core made.
type DoctorReport struct {
	Checks []DoctorCheck `json:"checks"`
}

// Doctor thresholds.
const (
	maxClockSkew   = 30 * time.Second
	certWarnBefore = 30 * 24 * time.Hour
	pingTimeout    = 3 * time.Second
)

func checkOK(name, detail string) DoctorCheck {
	return DoctorCheck{Name: name, Status: CheckOK, Detail: detail}
}
func checkBad(status, name, detail, fix string) DoctorCheck {
	return DoctorCheck{Name: name, Status: status, Detail: detail, Fix: fix}
}

// LocalChecks are the checks that need no running core: the config, the
// data dir's permissions, the certificate and the kernel's confinement of
// task commands.
func LocalChecks(dataDir, cfgPath string, now time.Time) []DoctorCheck {
	checks := []DoctorCheck{checkConfig(cfgPath), checkDataDir(dataDir)}
	return append(checks, checkCert(filepath.Join(dataDir, "tls", rpc.CertFile), now), checkTaskConfinement())
}

// checkTaskConfinement reports whether this kernel's Landlock confines
// the commands of peers' tasks. Without it they run as the owner with
// nothing but a scratch home between them and the owner's files.
func checkTaskConfinement() DoctorCheck {
	ok, detail := task.ConfinementSupport()
	if !ok {
		return checkBad(CheckWarn, "task confinement", detail,
			"run aoi on Linux 5.19 or later with Landlock enabled (lsm= on the kernel command line includes landlock), or approve only tasks whose code you trust")
	}
	return checkOK("task confinement", detail)
}

func checkConfig(path string) DoctorCheck {
	cfg, err := config.Load(path)
	if err != nil {
		return checkBad(CheckFail, "config", err.Error(), "fix "+path+" as the message says, then check it with `aoi config validate`")
	}
	if warnings := config.Warnings(cfg); len(warnings) > 0 {
		w := warnings[0]
		return checkBad(CheckWarn, "config", fmt.Sprintf("%s: %s (%d such problem(s))", w.Path, w.Problem, len(warnings)),
			w.Fix+" (`aoi config validate` lists each)")
	}
	return checkOK("config", path+" is valid")
}

func checkDataDir(dir string) DoctorCheck {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return checkBad(CheckFail, "data dir", dir+" does not exist", "run `aoi init` to create it")
	}
	if err != nil {
		return checkBad(CheckFail, "data dir", err.Error(), "check that "+dir+" is readable by you")
	}
	if perm := fi.Mode().Perm(); perm != 0o700 {
		return checkBad(CheckFail, "data dir", fmt.Sprintf("%s has mode %#o; other users can reach the database and keys", dir, perm),
			"chmod 700 "+dir)
	}
	return checkOK("data dir", dir+" is private (0700)")
}

func checkCert(path string, now time.Time) DoctorCheck {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return checkBad(CheckWarn, "certificate", "no certificate at "+path+" (tailnet-only setups need none)", "run `aoi init` to create one for direct mode")
	}
	if err != nil {
		return checkBad(CheckFail, "certificate", err.Error(), "check the permissions of "+path)
	}
	block, _ := pem.Decode(raw)
	if block == nil {
		return checkBad(CheckFail, "certificate", path+" is not a PEM certificate", "remove "+filepath.Dir(path)+" and run `aoi init` for a new identity (peers must pin the new fingerprint)")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return checkBad(CheckFail, "certificate", path+": "+err.Error(), "remove "+filepath.Dir(path)+" and run `aoi init` for a new identity")
	}
	left := cert.NotAfter.Sub(now)
	switch {
	case left <= 0:
		return checkBad(CheckFail, "certificate", "expired on "+cert.NotAfter.Format(time.DateOnly), "remove "+filepath.Dir(path)+" and run `aoi init`; peers must pin the new fingerprint")
	case left < certWarnBefore:
		return checkBad(CheckWarn, "certificate", "expires on "+cert.NotAfter.Format(time.DateOnly), "plan a new identity before then (`aoi init` after removing "+filepath.Dir(path)+")")
	}
	return checkOK("certificate", "valid until "+cert.NotAfter.Format(time.DateOnly))
}

// OfflineIntegrity checks the database file read-only when no core runs.
func OfflineIntegrity(ctx context.Context, dataDir string) DoctorCheck {
	path := filepath.Join(dataDir, "aoi.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return checkBad(CheckWarn, "database", "no database yet at "+path, "start aoi once (`aoi serve`) to create it")
	}
	problems, err := store.IntegrityCheckFile(ctx, path)
	return integrityCheck(path, problems, err)
}

func integrityCheck(path string, problems []string, err error) DoctorCheck {
	if err != nil {
		return checkBad(CheckFail, "database", err.Error(), "check that "+path+" is readable and not locked by another program")
	}
	if len(problems) > 0 {
		return checkBad(CheckFail, "database", "integrity_check: "+strings.Join(problems, "; "),
			"stop aoi, keep a copy of "+path+", then recover it with `sqlite3 "+path+" .recover | sqlite3 fixed.db` and move fixed.db into place")
	}
	return checkOK("database", "integrity_check ok")
}

// Doctor runs the checks that need the running core: database integrity,
// the audit chain, the tailnet and clock skew with each reachable peer.
func (c *Core) Doctor(ctx context.Context) (DoctorReport, error) {
	problems, err := c.db.IntegrityCheck(ctx)
	rep := DoctorReport{Checks: []DoctorCheck{integrityCheck(c.db.Path(), problems, err)}}
	if v, err := c.VerifyAudit(ctx); err != nil || !v.OK {
		detail := v.Problem
		if err != nil {
			detail = err.Error()
		}
		rep.Checks = append(rep.Checks, checkBad(CheckFail, "audit chain", detail, "inspect the row with `aoi audit --json`; the log was changed outside aoi"))
	} else if v.Warning != "" {
		rep.Checks = append(rep.Checks, checkBad(CheckWarn, "audit chain", fmt.Sprintf("%d rows verify; %s", v.Entries, v.Warning),
			"it is written again at the next seal; keep a copy of it outside the data dir"))
	} else {
		rep.Checks = append(rep.Checks, checkOK("audit chain", fmt.Sprintf("%d rows verify", v.Entries)))
	}
	rep.Checks = append(rep.Checks, c.tailnetCheck(ctx))
	return rep, c.appendSkewChecks(ctx, &rep)
}

// tailnetCheck reports the tailnet state in tailnet mode.
func (c *Core) tailnetCheck(ctx context.Context) DoctorCheck {
	st, err := c.Status(ctx)
	switch {
	case err != nil:
		return checkBad(CheckFail, "tailnet", err.Error(), "see the log in "+c.dataDir)
	case st.Transport != "tailnet":
		return checkOK("tailnet", "direct mode (mutual TLS on "+st.ListenAddr+"); no tailnet in use")
	case st.Tailnet == nil || st.Tailnet.State != "Running":
		state := "unknown"
		if st.Tailnet != nil {
			state = st.Tailnet.State
		}
		return checkBad(CheckFail, "tailnet", "tailnet state is "+state, "check TS_AUTHKEY / network.tailscale in the config and the log; a new node may need approval in the admin console")
	}
	return checkOK("tailnet", "running on "+st.Tailnet.Name+" as "+st.Tailnet.NodeName)
}

// appendSkewChecks pings every pinned peer with an endpoint and compares
// its clock with ours (approval expiry and audit times depend on it).
func (c *Core) appendSkewChecks(ctx context.Context, rep *DoctorReport) error {
	peers, err := c.Peers(ctx)
	if err != nil {
		return err
	}
	rep.Checks = append(rep.Checks, c.expiredCertChecks(peers)...)
	var targets []Peer
	for _, p := range peers {
		switch {
		case p.Trust != TrustPinned || p.Endpoint == "":
		case p.Status == PeerOffline:
			rep.Checks = append(rep.Checks, checkBad(CheckWarn, "clock vs "+p.AgentID, p.AgentID+" is offline; its clock was not checked", ""))
		default:
			targets = append(targets, p)
		}
	}
	// Ping in parallel so one slow peer costs pingTimeout, not one each.
	results := make([]DoctorCheck, len(targets))
	var wg sync.WaitGroup
	for i, p := range targets {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = c.skewCheck(ctx, p.AgentID) }()
	}
	wg.Wait()
	rep.Checks = append(rep.Checks, results...)
	return nil
}

func (c *Core) skewCheck(ctx context.Context, peer string) DoctorCheck {
	name := "clock vs " + peer
	cl, err := c.peers.Client(ctx, peer)
	if err != nil {
		return checkBad(CheckWarn, name, err.Error(), "")
	}
	pctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	sent := time.Now()
	var res wire.PingResult
	if err := cl.Call(pctx, wire.MethodPing, wire.PingParams{From: c.selfID(), AOIVersion: wire.ProtocolVersion}, &res); err != nil {
		return checkBad(CheckWarn, name, peers.CallError(peer, err).Error(), "")
	}
	rtt := time.Since(sent)
	skew := res.Time.Sub(sent.Add(rtt / 2))
	if skew.Abs() > maxClockSkew {
		return checkBad(CheckFail, name, fmt.Sprintf("clocks differ by %s", skew.Round(time.Second)),
			"turn on time sync on both machines (Linux: `timedatectl set-ntp true`; macOS: System Settings → Date & Time)")
	}
	return checkOK(name, fmt.Sprintf("clocks agree within %s", skew.Abs().Round(time.Millisecond)))
}
