package agent

import (
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// metricsTokenFile holds the bearer token /metrics asks for, in the data
// dir (mode 0600): the endpoint is plain HTTP on an address the owner's
// other local users (and, on a tailnet address, the tailnet) can reach,
// and its counters say who calls whom and how often.
const metricsTokenFile = "metrics.token"

// MetricsTokenPath is where the data dir dir keeps the token /metrics
// asks for (Prometheus: authorization.credentials_file).
func MetricsTokenPath(dir string) string { return filepath.Join(dir, metricsTokenFile) }

// loadOrCreateMetricsToken reads the token from path, making one on first
// use. A token file others may read is refused rather than used: whoever
// can read it can scrape.
func loadOrCreateMetricsToken(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		tok := rand.Text()
		_, werr := f.WriteString(tok)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(path)
			return "", werr
		}
		return tok, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	return readMetricsToken(path)
}

// readMetricsToken reads an existing token file, which must be the
// owner's alone and not empty.
func readMetricsToken(path string) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s must be a file only you can read (chmod 600 %s)", path, path)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(raw))
	if tok == "" {
		return "", fmt.Errorf("%s is empty; remove it and aoi makes a new token", path)
	}
	return tok, nil
}

// requireBearer serves next only to requests that carry token as a
// bearer token (the scheme in any case, as HTTP has it; the token compared
// in constant time); others get 401.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(got), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="aoi metrics"`)
			http.Error(w, "/metrics needs the bearer token in aoi's data dir ("+metricsTokenFile+"): "+
				"Authorization: Bearer <token>", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
