package store

import (
	"encoding/hex"
	"fmt"
	"strconv"
)

// Signed anchors. aoi forget and pruning leave rows the chain alone cannot
// vouch for: a redacted row no longer matches its hash, and a pruned log
// no longer starts at genesis. Each is accepted on the word of an anchor
// row (agent.forgotten, audit.checkpoint). Anyone who can write the file
// could append such an anchor, and the agent's next seal would sign the
// chain through it (the attack run rewrote a sealed row and deleted a
// prefix that way). So an anchor carries a signature by the agent's key
// over what it vouches for, and once the chain holds a seal that says
// anchors are signed (anchors_signed_since, covered by that seal's
// signature), every anchor after that point must carry a valid one. An
// anchor written before an agent of this release sealed the log is taken
// as before.

// anchorSignature signs msg with the store's key, hex-encoded ("" with no
// key: nothing to sign with, and nothing will be checked).
func (tx *Tx) anchorSignature(msg []byte) (string, error) {
	k := tx.db.key()
	if k == nil {
		return "", nil
	}
	sig, err := k.Sign(msg)
	if err != nil {
		return "", fmt.Errorf("store: signing an audit anchor: %w", err)
	}
	return hex.EncodeToString(sig), nil
}

// forgetMessage is what an agent.forgotten row's signature covers.
func forgetMessage(digest string) []byte { return []byte("aoi audit forget\n" + digest) }

// checkpointMessage is what an audit.checkpoint row's signature covers.
func checkpointMessage(from int64, hash string) []byte {
	return []byte("aoi audit checkpoint\n" + strconv.FormatInt(from, 10) + "\n" + hash)
}

// anchorSeen is an anchor row the walk met, and whether its signature is
// this agent's.
type anchorSeen struct {
	seq    int64
	method string
	signed bool
}

// signedBy reports whether sig (hex) is the store key's signature of msg;
// false without a key.
func (v *chainVerifier) signedBy(sig string, msg []byte) bool {
	k := v.db.key()
	b, err := hex.DecodeString(sig)
	return k != nil && sig != "" && err == nil && k.Verify(msg, b)
}

// noteSignedSince records the point after which anchors must be signed,
// as a verified seal (in the chain or the anchor file) says.
func (v *chainVerifier) noteSignedSince(since int64) {
	if since > 0 && (v.signedSince == 0 || since < v.signedSince) {
		v.signedSince = since
	}
}

// checkAnchorSignatures runs after the walk: an anchor written after
// anchors were signed must carry a valid signature.
func (v *chainVerifier) checkAnchorSignatures() (int64, string) {
	if v.db.key() == nil || v.signedSince == 0 {
		return 0, ""
	}
	for _, a := range v.anchors {
		if a.seq >= v.signedSince && !a.signed {
			return a.seq, fmt.Sprintf("row %d: the %s row is not signed by this agent — it was added by hand to make the log accept rows it changed or removed", a.seq, a.method)
		}
	}
	return 0, ""
}
