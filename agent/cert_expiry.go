package agent

import (
	"time"

	"github.com/aoi-protocol/aoi/agent/errs"
	"github.com/aoi-protocol/aoi/rpc"
)

// checkCertExpiry refuses a caller whose certificate has expired when the
// owner's config says so (network.refuse_expired_certs); otherwise expiry
// is only reported (Peers pane, aoi doctor).
func (c *Core) checkCertExpiry(caller rpc.Caller) error {
	if caller.CertNotAfter.IsZero() || !c.now().After(caller.CertNotAfter) || !c.config().Network.RefuseExpiredCerts {
		return nil
	}
	return errs.Denied("the certificate this peer presents expired on "+caller.CertNotAfter.UTC().Format(time.DateOnly)+
		"; ask its owner to make a new identity (aoi init) and pin the new fingerprint, or unset network.refuse_expired_certs",
		map[string]any{"fingerprint": caller.Fingerprint})
}

// expiredCertChecks warns in aoi doctor about pinned peers whose
// certificates have expired.
func (c *Core) expiredCertChecks(peers []Peer) []DoctorCheck {
	var out []DoctorCheck
	for _, p := range peers {
		if p.CertExpiredAt.IsZero() {
			continue
		}
		out = append(out, checkBad(CheckWarn, "certificate of "+p.AgentID,
			"expired on "+p.CertExpiredAt.UTC().Format(time.DateOnly)+"; it is still let in",
			"ask its owner for a new identity and pin it, or set network.refuse_expired_certs to refuse it"))
	}
	return out
}
