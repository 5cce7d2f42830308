package agent

import (
	"context"
	"crypto/ed25519"
	"time"

	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/store"
)

// sealEvery is how often the audit log's head is sealed with the identity
// key while rows are being added (store/audit_seal.go); a clean stop seals
// it too.
const sealEvery = 10 * time.Minute

// identityKey signs audit seals with the agent's ed25519 identity key.
type identityKey struct{ priv ed25519.PrivateKey }

func (k identityKey) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(k.priv, msg), nil }

func (k identityKey) Verify(msg, sig []byte) bool {
	return ed25519.Verify(k.priv.Public().(ed25519.PublicKey), msg, sig)
}

// auditKeyOf is the identity's key as an audit key, or nil when the
// identity is not ed25519 (aoi makes only ed25519 ones).
func auditKeyOf(id *rpc.Identity) store.AuditKey {
	if priv, ok := id.Certificate.PrivateKey.(ed25519.PrivateKey); ok {
		return identityKey{priv}
	}
	return nil
}

// sealLoop seals the audit log's head every sealEvery until ctx ends.
func (c *Core) sealLoop(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.clock.After(sealEvery):
		}
		c.seal(ctx)
	}
}

// seal seals the audit head, logging a failure (the next seal retries).
func (c *Core) seal(ctx context.Context) {
	if _, err := c.db.SealAudit(ctx); err != nil {
		c.log.Warn("sealing the audit log failed", "component", "audit", "err", err)
	}
}
