package jsonwalk

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// TestNameOfAPlainKeyAllocatesNothing: the peer path compares every key
// of a request with the names it knows, and String copied each one.
func TestNameOfAPlainKeyAllocatesNothing(t *testing.T) {
	key := []byte(`"context_scope"`)
	var hits int
	allocs := testing.AllocsPerRun(100, func() {
		name, ok := Name(key)
		switch string(name) {
		case "from", "to":
		case "context_scope":
			if ok {
				hits++
			}
		}
	})
	if allocs != 0 || hits == 0 {
		t.Fatalf("Name of a key without escapes: %v allocations a call, %d matches", allocs, hits)
	}
	if name, ok := Name([]byte(`"\u006dethod"`)); !ok || string(name) != "method" {
		t.Fatalf(`Name of an escaped key = %q, %v; want "method"`, name, ok)
	}
	if _, ok := Name([]byte(`12`)); ok {
		t.Fatal("Name of a number says it is a string")
	}
}

// FuzzWalk: on valid JSON, Members and Elements give what encoding/json
// decodes into a []struct{key, value} or a []json.RawMessage (last value
// of a repeated key aside: the walk gives every one, in order); on any
// other input they return without panicking.
func FuzzWalk(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"aoi.query","params":{"q":"{[\"]}"},"id":1}`,
		` { "a" : "x\"y" , "b":[1,{"c":[]}] ,"d":-1.5e3,"e":true,"f":null} `,
		`{"\u006dethod":"m","k\\":"\\\\"}`, `["a",1,[2,[3]],{"x":"]"},null,false]`,
		`{}`, `[]`, `null`, `"s"`, `12`, `{"a"`, `{"a":`, `[1,`, `{"a" 1}`, `{"id":"日本語"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var keys, values [][]byte
		isObject := Members(raw, func(k, v []byte) bool {
			keys, values = append(keys, k), append(values, v)
			return true
		})
		var elems [][]byte
		isArray := Elements(raw, func(v []byte) bool { elems = append(elems, v); return true })
		if !json.Valid(raw) {
			return // only: no panic, and the walks end
		}
		var m map[string]json.RawMessage
		wantObject := json.Unmarshal(raw, &m) == nil && m != nil
		if isObject != wantObject {
			t.Fatalf("%q: Members says object=%v, encoding/json %v", raw, isObject, wantObject)
		}
		last := map[string][]byte{}
		for i, k := range keys {
			name, ok := String(k)
			if !ok {
				t.Fatalf("%q: key %q is not a string", raw, k)
			}
			last[name] = values[i]
			// Name compares as the decoded key does: equal to the same
			// names (it keeps a broken byte as written where String puts
			// U+FFFD, and no name holds either).
			text, ok := Name(k)
			if !ok {
				t.Fatalf("%q: Name says key %q is not a string", raw, k)
			}
			if utf8.Valid(text) && string(text) != name {
				t.Fatalf("%q: Name(%q) = %q, String %q", raw, k, text, name)
			}
			for _, probe := range []string{"method", "id", "from", "context_scope"} {
				if (string(text) == probe) != (name == probe) {
					t.Fatalf("Name(%q) = %q and String %q disagree on %q", k, text, name, probe)
				}
			}
		}
		if isObject && len(last) != len(m) {
			t.Fatalf("%q: %d distinct keys, encoding/json %d", raw, len(last), len(m))
		}
		for name, v := range last {
			if !bytes.Equal(v, m[name]) {
				t.Fatalf("%q: %q = %q, encoding/json %q", raw, name, v, m[name])
			}
		}
		var a []json.RawMessage
		wantArray := json.Unmarshal(raw, &a) == nil && a != nil
		if isArray != wantArray || len(elems) != len(a) {
			t.Fatalf("%q: Elements gives %d (array=%v), encoding/json %d (%v)", raw, len(elems), isArray, len(a), wantArray)
		}
		for i := range a {
			if !bytes.Equal(elems[i], a[i]) {
				t.Fatalf("%q: element %d = %q, encoding/json %q", raw, i, elems[i], a[i])
			}
		}
	})
}
