package agent_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestPeerSecretsNeverStored: secrets a colleague puts in a query (an AWS
// key and secret, GitHub tokens, a PEM private key, a password in angle
// brackets, which Go's encoder escapes) are redacted before the receiving
// agent stores or logs anything, and before the asking agent keeps its
// question: none appears in either database or WAL bytes.
func TestPeerSecretsNeverStored(t *testing.T) {
	ctx := context.Background()
	eng := newTestAgent(t, "eng-suzuki", "engineer", engConfig)
	pm := newTestAgent(t, "pm-tanaka", "pm", nil)
	pair(eng, pm)
	secrets := []string{
		"AKIA" + "Z7QXPLMR4TWV2KJN",
		"ghp_" + "9fK2mQx7Lp3Rt8Vw1Zb6Nc4Hd0Jy5Ge2Aq7S",
		"gho_" + "7hQ2mLx9Kp4Rt1Vw8Zb3Nc6Hd5Jy0Ge4Aq2T",
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAz3VxY8kq2LmN7pQ4rT6wX9bC1dF5gH8jK0lM3nP2qR5sT7uV\n-----END RSA PRIVATE KEY-----",
		"password=<hunter13x>",
		"AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8rT2vX9k",
	}
	needleOf := map[string]string{"password=<hunter13x>": "hunter13x", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8rT2vX9k": "wJalrXUtnFEMI/K7MDENG"}
	for _, s := range secrets {
		// Asked low priority, so the query is stored and waits for the owner.
		_, _ = pm.Ask(ctx, agent.AskRequest{To: "eng-suzuki", Query: "can you check this: " + s, ContextScope: []string{"acme/webapp"}, Priority: "low"})
	}
	qs, err := eng.Queries(ctx, agent.QueryFilter{})
	if err != nil || len(qs) < len(secrets) {
		t.Fatalf("eng stored %d queries (%v), want %d", len(qs), err, len(secrets))
	}
	for _, path := range []string{eng.DBPath(), eng.DBPath() + "-wal", pm.DBPath(), pm.DBPath() + "-wal"} {
		b, err := os.ReadFile(path)
		if err != nil {
			continue // no WAL after a checkpoint: the database file holds everything
		}
		for _, s := range secrets {
			needle := s
			switch {
			case needleOf[s] != "":
				needle = needleOf[s]
			case len(needle) > 40:
				needle = needle[32:72] // the key material of the PEM block
			}
			if bytes.Contains(b, []byte(needle)) {
				t.Errorf("%s holds a secret %q…", path, needle[:8])
			}
		}
	}
}
