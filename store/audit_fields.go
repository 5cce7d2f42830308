package store

import (
	"math"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/internal/jsonwrite"
)

// AuditFields builds an audit detail of plain members (strings, string
// lists, numbers) member by member, and writes it in canonical form
// without the map NewAuditDetail takes: no map, no boxed values, no sort
// of a map's keys. Every aoi.query audits one, and building the map and
// walking it took about 2% of the request's CPU. The detail is byte for
// byte what NewAuditDetail gives for the same members as a
// map[string]any (TestAuditFieldsAsNewAuditDetail).
//
// The zero value is empty and ready to use. A key given twice keeps its
// last value, as a map would.
type AuditFields struct {
	fields [8]auditField
	n      int
	more   []auditField // past the eighth
}

type auditField struct {
	key  string
	kind byte // 's' string, 'l' string list, 'n' number
	s    string
	list []string
	num  float64
}

// String adds a string member.
func (a *AuditFields) String(key, value string) {
	a.add(auditField{key: key, kind: 's', s: value})
}

// Strings adds a string list member; a nil list is JSON null.
func (a *AuditFields) Strings(key string, value []string) {
	a.add(auditField{key: key, kind: 'l', list: value})
}

// Number adds a number member.
func (a *AuditFields) Number(key string, value float64) {
	a.add(auditField{key: key, kind: 'n', num: value})
}

func (a *AuditFields) add(f auditField) {
	for i := range a.len() {
		if p := a.at(i); p.key == f.key {
			*p = f
			return
		}
	}
	if a.n < len(a.fields) {
		a.fields[a.n] = f
		a.n++
		return
	}
	a.more = append(a.more, f)
}

func (a *AuditFields) len() int { return a.n + len(a.more) }

func (a *AuditFields) at(i int) *auditField {
	if i < len(a.fields) {
		return &a.fields[i]
	}
	return &a.more[i-len(a.fields)]
}

// Detail is the members as AppendAudit stores them, with NewAuditDetail's
// errors.
func (a *AuditFields) Detail() (AuditDetail, error) {
	var small [len(AuditFields{}.fields)]int
	order := small[:0]
	if a.len() > len(small) {
		order = make([]int, 0, a.len())
	}
	order = order[:a.len()] // a handful: sorted by insertion
	for i := range order {
		j := i
		for ; j > 0 && a.at(order[j-1]).key > a.at(i).key; j-- {
			order[j] = order[j-1]
		}
		order[j] = i
	}
	b := make([]byte, 0, 256)
	b = append(b, '{')
	for i, k := range order {
		f := a.at(k)
		if !f.plain() {
			return NewAuditDetail(a.asMap()) // its round trip words what it keeps
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonwrite.AppendString(b, f.key)
		b = append(b, ':')
		b = f.appendValue(b)
	}
	b = append(b, '}')
	if len(b) > maxAuditDetail {
		return NewAuditDetail(a.asMap()) // which reports the size
	}
	return AuditDetail{canonical: string(b)}, nil
}

// plain reports whether the member is written the same directly as after
// canonicalDetail's round trip (plainJSON's rule).
func (f *auditField) plain() bool {
	if !utf8.ValidString(f.key) {
		return false
	}
	switch f.kind {
	case 's':
		return utf8.ValidString(f.s)
	case 'n':
		return !math.IsInf(f.num, 0) && !math.IsNaN(f.num)
	}
	if f.list == nil {
		return false
	}
	for _, s := range f.list {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func (f *auditField) appendValue(b []byte) []byte {
	switch f.kind {
	case 's':
		return jsonwrite.AppendString(b, f.s)
	case 'n':
		return appendFloat(b, f.num)
	}
	return jsonwrite.AppendStrings(b, f.list)
}

func (a *AuditFields) asMap() map[string]any {
	m := make(map[string]any, a.len())
	for i := range a.len() {
		f := a.at(i)
		switch f.kind {
		case 's':
			m[f.key] = f.s
		case 'n':
			m[f.key] = f.num
		default:
			m[f.key] = f.list
		}
	}
	return m
}
