package agent

import "time"

// expiredCertChecks warns in aoi doctor about pinned peers whose
// certificates have expired, saying what the running config does with
// them: network.refuse_expired_certs is read on every call, so a reload
// that sets it refuses the peer from then on, and the advice to set it
// would be wrong.
func (c *Core) expiredCertChecks(peers []Peer) []DoctorCheck {
	refuse := c.config().Network.RefuseExpiredCerts
	var out []DoctorCheck
	for _, p := range peers {
		if p.CertExpiredAt.IsZero() {
			continue
		}
		expired := "expired on " + p.CertExpiredAt.UTC().Format(time.DateOnly)
		replace := "ask its owner to make a new identity (aoi init) and pin its fingerprint with `aoi peers trust " + p.AgentID + " FINGERPRINT --replace`"
		if refuse {
			out = append(out, checkBad(CheckWarn, "certificate of "+p.AgentID,
				expired+"; its calls are refused (network.refuse_expired_certs is set)", replace))
			continue
		}
		out = append(out, checkBad(CheckWarn, "certificate of "+p.AgentID,
			expired+"; it is still let in", replace+", or set network.refuse_expired_certs: true to refuse it"))
	}
	return out
}
