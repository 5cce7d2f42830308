package store

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/jsonwrite"
)

// The audit hash scheme. `aoi audit verify` and external auditors depend on
// it, so it never changes without a new method name in the chain.
//
// For each row of audit_log:
//
//	hash = lowercase_hex( SHA-256( prev_hash || canonical ) )
//
// where prev_hash is the previous row's hash as its 64 ASCII hex characters
// (the first row of a fresh chain uses 64 "0" characters, GenesisHash) and
// canonical is this exact byte string (no spaces or newlines):
//
//	{"agent":A,"detail":D,"method":M,"result":R,"seq":N,"ts":T}
//
//   - A, M, R and T are the row's agent, method, result and ts columns as JSON
//     strings: UTF-8, with `"` → `\"`, `\` → `\\`, U+0008 → `\b`, U+000C → `\f`,
//     U+000A → `\n`, U+000D → `\r`, U+0009 → `\t`, every other character below
//     U+0020 and U+2028, U+2029 as `\u00XX` / `\u2028` / `\u2029` (lowercase
//     hex), everything else (including `<`, `>`, `&`, non-ASCII) as itself.
//     This is Go's encoding/json with HTML escaping turned off.
//   - T, the ts column, is the time the row was written in RFC 3339 with
//     nanoseconds, UTC, trailing fractional zeros dropped (Go's
//     time.RFC3339Nano), e.g. "2025-05-01T09:30:00.123456789Z".
//   - N, the seq column, as a base-10 integer.
//   - D is the detail column byte for byte. AppendAudit stores the detail in
//     canonical form (compact JSON, object keys sorted by their UTF-8 bytes,
//     numbers as written, strings escaped as above), so a verifier never
//     re-encodes it: any change to the column, even whitespace, breaks the
//     hash. A row without detail has D = null.
//
// Keys appear in that order because it is the sorted order of the key names.

// GenesisHash is the prev_hash of the first row of a chain.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// maxAuditDetail bounds one row's detail so a hostile request cannot bloat
// the log; callers summarise instead.
const maxAuditDetail = 64 << 10

// auditHead is the end of the chain: the newest row's seq and hash.
type auditHead struct {
	seq  int64
	hash string
}

// auditHash computes a row's hash from its stored column values.
func auditHash(prevHash string, seq int64, ts, agent, method, result, detail string) string {
	// One buffer, hashed at once: no digest or sum to allocate for every
	// row the writer appends, and for a row of common size (a question's)
	// no buffer either.
	var stack [1024]byte
	b := appendCanonicalAuditJSON(append(stack[:0], prevHash...), seq, ts, agent, method, result, detail)
	sum := sha256.Sum256(b)
	var out [2 * sha256.Size]byte
	hex.Encode(out[:], sum[:])
	return string(out[:])
}

// canonicalAuditJSON builds the canonical byte string described above.
func canonicalAuditJSON(seq int64, ts, agent, method, result, detail string) []byte {
	b := make([]byte, 0, 96+len(ts)+len(agent)+len(method)+len(result)+len(detail))
	return appendCanonicalAuditJSON(b, seq, ts, agent, method, result, detail)
}

func appendCanonicalAuditJSON(b []byte, seq int64, ts, agent, method, result, detail string) []byte {
	b = append(b, `{"agent":`...)
	b = jsonwrite.AppendString(b, agent)
	b = append(b, `,"detail":`...)
	b = append(b, detail...)
	b = append(b, `,"method":`...)
	b = jsonwrite.AppendString(b, method)
	b = append(b, `,"result":`...)
	b = jsonwrite.AppendString(b, result)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `,"ts":`...)
	b = jsonwrite.AppendString(b, ts)
	return append(b, '}')
}

// canonicalDetail renders detail in the canonical form stored in the detail
// column: any Go value (or json.RawMessage / []byte holding JSON) → compact
// JSON with sorted object keys, numbers kept as written.
func canonicalDetail(detail any) (string, error) {
	var raw []byte
	switch d := detail.(type) {
	case nil:
		return "null", nil
	case AuditDetail:
		if d.canonical == "" {
			return "null", nil
		}
		return d.canonical, nil
	case json.RawMessage:
		raw = d
	case []byte:
		raw = d
	default:
		if out, ok := flatCanonical(detail); ok {
			return out, nil
		}
		var err error
		if raw, err = json.Marshal(detail); err != nil {
			return "", fmt.Errorf("store: audit detail cannot be encoded as JSON: %w", err)
		}
	}
	if len(raw) == 0 {
		return "null", nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("store: audit detail is not valid JSON: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("store: audit detail cannot be re-encoded: %w", err)
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(out) > maxAuditDetail {
		return "", fmt.Errorf("store: audit detail is %d bytes, more than the %d allowed; record a summary instead", len(out), maxAuditDetail)
	}
	return string(out), nil
}

// AuditDetail is an audit detail already in canonical form (see
// NewAuditDetail). Encoding it before DB.Write keeps the encoding out of
// the single writer, where every queued caller waits for it.
type AuditDetail struct{ canonical string }

// NewAuditDetail encodes detail as AppendAudit would store it, with the
// same errors; pass the result to AppendAudit in place of detail.
func NewAuditDetail(detail any) (AuditDetail, error) {
	c, err := canonicalDetail(detail)
	return AuditDetail{canonical: c}, err
}

// flatCanonical is canonicalDetail's fast path for the common detail, a
// map[string]any of plain strings, numbers, booleans and string lists:
// written directly in canonical form (keys sorted by their bytes, strings
// escaped as encoding/json escapes them without HTML escaping, numbers as
// encoding/json writes them), it is byte for byte what the marshal, decode,
// re-encode round trip gives, without the round trip or reflection's map
// encoder. Every aoi.query pays for one. Anything else (structs, nested
// maps, invalid UTF-8, types with their own JSON encoding) reports false
// and takes the round trip.
func flatCanonical(detail any) (string, bool) {
	m, ok := detail.(map[string]any)
	if !ok {
		return "", false
	}
	keys := make([]string, 0, len(m))
	size := 2
	for k, v := range m {
		if !utf8.ValidString(k) || !plainJSON(v) {
			return "", false
		}
		keys = append(keys, k)
		size += len(k) + 8
		if s, ok := v.(string); ok {
			size += len(s)
		}
	}
	slices.Sort(keys)
	b := make([]byte, 0, size)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonwrite.AppendString(b, k)
		b = append(b, ':')
		b = appendPlain(b, m[k])
	}
	b = append(b, '}')
	if len(b) > maxAuditDetail {
		return "", false // the round trip reports the size
	}
	return string(b), true
}

// appendPlain appends v, a value plainJSON accepted, as encoding/json
// writes it.
func appendPlain(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return jsonwrite.AppendString(b, x)
	case float64:
		return appendFloat(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10)
	case bool:
		return strconv.AppendBool(b, x)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, rv.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, rv.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.AppendUint(b, rv.Uint(), 10)
	case reflect.Float64:
		return appendFloat(b, rv.Float())
	case reflect.String:
		return jsonwrite.AppendString(b, rv.String())
	}
	b = append(b, '[') // a string list (plainJSON admits no other kind)
	for i := range rv.Len() {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonwrite.AppendString(b, rv.Index(i).String())
	}
	return append(b, ']')
}

// appendFloat appends a finite float64 as encoding/json writes it: plain
// notation between 1e-6 and 1e21, exponent notation outside, with the
// exponent's leading zero dropped (1e-07 → 1e-7).
func appendFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// plainJSON reports whether v encodes the same directly as after a decode
// (with UseNumber) and re-encode.
func plainJSON(v any) bool {
	switch x := v.(type) { // the common types, without reflection
	case nil, int, bool:
		return true
	case string:
		return utf8.ValidString(x)
	case float64:
		return !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	rv := reflect.ValueOf(v)
	t := rv.Type()
	if t.Implements(jsonMarshaler) || t.Implements(textMarshaler) {
		return false
	}
	switch rv.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	case reflect.Float64:
		f := rv.Float()
		return !math.IsInf(f, 0) && !math.IsNaN(f)
	case reflect.String:
		return utf8.ValidString(rv.String())
	case reflect.Slice:
		e := t.Elem()
		if rv.IsNil() || e.Kind() != reflect.String || e.Implements(jsonMarshaler) || e.Implements(textMarshaler) {
			return false
		}
		for i := range rv.Len() {
			if !utf8.ValidString(rv.Index(i).String()) {
				return false
			}
		}
		return true
	}
	return false
}
