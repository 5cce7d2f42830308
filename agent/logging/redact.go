package logging

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/fold"
	"github.com/aoi-protocol/aoi/internal/utf8cut"
)

// Redacted replaces a secret in the log.
const Redacted = "[REDACTED]"

// secretWords are key words whose values are never logged: a key matches
// when one of its words ("_", "-", "." separated) is one of these, so
// api_key, ts-auth-key, Authorization and access_token match while
// tokens_used does not.
var secretWords = map[string]bool{
	"token": true, "secret": true, "password": true, "passwd": true, "authorization": true,
	"key": true, "apikey": true, "authkey": true, "cookie": true, "credential": true,
	"credentials": true, "bearer": true, "passphrase": true,
}

// secretValue matches secrets that can appear in any value: bearer
// tokens, Tailscale auth keys, OpenAI-style API keys.
var secretValue = regexp.MustCompile(`(?i)bearer\s+[a-z0-9._~+/=-]+|tskey-[a-z0-9-]+|\bsk-[a-z0-9_-]{16,}`)

// IsSecretKey reports whether an attribute key names a secret.
func IsSecretKey(key string) bool {
	if v, ok := secretKeyCache.Load(key); ok {
		return v.(bool)
	}
	secret := isSecretKey(key)
	// Keys come from the code, so there are few; the bound only keeps a
	// stream of made-up keys from growing the cache.
	if secretKeyCount.Load() < maxCachedKeys {
		if _, loaded := secretKeyCache.LoadOrStore(key, secret); !loaded {
			secretKeyCount.Add(1)
		}
	}
	return secret
}

// secretKeyCache remembers IsSecretKey's answer per key: every log line
// asks it for each of its attributes.
var (
	secretKeyCache sync.Map // string → bool
	secretKeyCount atomic.Int64
)

const maxCachedKeys = 4096

func isSecretKey(key string) bool {
	k := strings.ToLower(key)
	if secretWords[k] {
		return true
	}
	for _, w := range strings.FieldsFunc(k, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		if secretWords[w] {
			return true
		}
	}
	return false
}

// redactingHandler redacts secrets from every attribute before the wrapped
// handler sees it, including attributes added with With and in groups.
type redactingHandler struct{ next slog.Handler }

// Redacting wraps h so that values of secret-named keys, and secrets
// recognisable by their shape in any value or message, are replaced by
// Redacted.
func Redacting(h slog.Handler) slog.Handler { return redactingHandler{next: h} }

func (h redactingHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h redactingHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, redactString(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h redactingHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = redactAttr(a)
	}
	return redactingHandler{next: h.next.WithAttrs(red)}
}

func (h redactingHandler) WithGroup(name string) slog.Handler {
	return redactingHandler{next: h.next.WithGroup(name)}
}

// redactAttr redacts one attribute, descending into groups.
func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	if IsSecretKey(a.Key) {
		return slog.String(a.Key, Redacted)
	}
	switch v.Kind() {
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, ga := range g {
			red[i] = redactAttr(ga)
		}
		return slog.Group(a.Key, red...)
	case slog.KindString:
		return slog.String(a.Key, redactString(v.String()))
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, redactString(err.Error()))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

// redactString replaces the secrets secretValue finds in s. It also keeps
// a line readable and harmless, whatever a peer put in it: a value over
// maxLogString bytes is cut (a peer's 8 MB refusal reason rotated the log
// away at every retry), and C1 controls and bidi marks, which the JSON
// encoder leaves as they are, are written as \u escapes so that neither
// a terminal showing the log nor its reader is misled.
func redactString(s string) string {
	nonASCII := hasNonASCII(s) // one scan serves both checks below
	if nonASCII {
		s = escapeHidden(s)
	}
	if (nonASCII || namesSecretValue(s)) && secretValue.MatchString(s) {
		s = secretValue.ReplaceAllString(s, Redacted) // before the cut: a secret across it is seen whole
	}
	if len(s) > maxLogString {
		cut := utf8cut.Prefix(s, maxLogString)
		s = cut + "…(" + strconv.Itoa(len(s)-len(cut)) + " more bytes)"
	}
	return s
}

// maxLogString bounds one value in a log line.
const maxLogString = 4096

func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// escapeHidden writes C1 controls (U+0080–U+009F) and invisible format
// characters (bidi marks, zero-width spaces: Unicode category Cf) as \u
// escapes; everything else is kept.
func escapeHidden(s string) string {
	if !strings.ContainsFunc(s, hidden) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hidden(r rune) bool {
	return r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Cf, r)
}

// mayHoldSecretValue is a cheap necessary condition for secretValue: every
// match contains "bearer", "tskey-" or "sk-". For ASCII text (?i) folds
// only ASCII letters, so a case-insensitive search for those is exact;
// text with any other byte goes to the regular expression, whose case
// folding also covers letters such as U+017F (ſ) and U+212A (K).
func mayHoldSecretValue(s string) bool { return hasNonASCII(s) || namesSecretValue(s) }

// namesSecretValue is mayHoldSecretValue for text known to be ASCII.
func namesSecretValue(s string) bool {
	return fold.ContainsASCII(s, "bearer") || fold.ContainsASCII(s, "tskey-") || fold.ContainsASCII(s, "sk-")
}
