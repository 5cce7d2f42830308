package agent

import "time"

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
