package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A value the config takes from the environment (${VAR}) is where a
// secret lives. Put where it fails validation (a key in the role, a token
// in listen_addr), a reload's refusal quoted it whole on aoi serve's
// stderr and in aoi.log (the attack pass). The refusal names the variable
// instead; the running config stays.
func TestReloadRefusalDoesNotRepeatAVariablesValue(t *testing.T) {
	bin := buildAOI(t)
	dir := filepath.Join(t.TempDir(), "eng")
	initAgent(t, bin, dir, "eng-suzuki")
	const secret, token = "Hunter2-TopSecretValue!", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	p := startServeWith(t, bin, dir, nil, []string{"ROLE_FROM_ENV=" + secret, "ADDR_FROM_ENV=" + token})
	p.waitServing(t, dir)

	cfgPath := filepath.Join(dir, "config.json")
	cfg := readFile(t, cfgPath)
	bad := strings.Replace(cfg, `"role": "engineer"`, `"role": "${ROLE_FROM_ENV}"`, 1)
	bad = strings.Replace(bad, `"listen_addr": "`, `"listen_addr": "${ADDR_FROM_ENV}`, 1)
	if bad == cfg || !strings.Contains(bad, "${ADDR_FROM_ENV}") {
		t.Fatalf("the test's config edit did not apply:\n%s", cfg)
	}
	writeFile(t, cfgPath, bad)
	p.signal(t, syscall.SIGHUP)
	p.waitFor(t, 15*time.Second, "the reload's refusal", func() bool {
		return strings.Contains(p.out.String(), "config not reloaded")
	})
	logged, err := os.ReadFile(filepath.Join(dir, "aoi.log"))
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range map[string]string{"stderr": p.out.String(), "aoi.log": string(logged)} {
		if strings.Contains(text, secret) || strings.Contains(text, token) {
			t.Errorf("%s repeats a variable's value:\n%s", where, text)
		}
	}
	if out := p.out.String(); !strings.Contains(out, "/agent/role: <the value of ${ROLE_FROM_ENV}> is not valid") {
		t.Errorf("the refusal should name the variable whose value is wrong:\n%s", out)
	}
	if st := p.waitServing(t, dir); st.AgentID != "eng-suzuki" {
		t.Errorf("status after the refused reload = %+v", st)
	}
}
