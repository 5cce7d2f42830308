package wire

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzDecodeQueryParams: whenever DecodeQueryParams takes params, they are
// what json.Unmarshal makes of them; and it takes the params every client
// sends, so the slow path is the exception.
func FuzzDecodeQueryParams(f *testing.F) {
	for _, s := range []string{
		`{"from":"pm-bench","to":"eng-bench","query":"認証機能の進捗は？ how is auth going?","context_scope":["acme/webapp"]}`,
		`{"from":"a","to":"b","query":"q \"quoted\" \u00e9","context_scope":[],"priority":"high","async":true,"timeout":30,"extra":{"x":[1]}}`,
		`{"query":"one","query":"two","timeout":-0,"async":false}`,
		`{"Query":"folded","query":"exact"}`, `{"qUEry":"x"}`, `{"timeout":1.5}`, `{"timeout":1e3}`, `{"timeout":99999999999999999999}`,
		`{"context_scope":null}`, `{"context_scope":["a",null]}`, `{"context_scope":"a"}`, `{"async":"yes"}`, `{"from":null}`,
		`{"from":"\xff"}`, `{"fro\u006d":"escaped key"}`, `[]`, `null`, `{}`, `{"from":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ok := DecodeQueryParams(raw) // given text that is not JSON, it must still return
		if !ok || !json.Valid(raw) {
			return
		}
		var want QueryParams
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("%q: taken, but json.Unmarshal fails: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", raw, got, want)
		}
	})
}

func TestDecodeQueryParamsTakesWhatClientsSend(t *testing.T) {
	for _, raw := range []string{
		`{"from":"pm-bench","to":"eng-bench","query":"認証機能の進捗は？ how is auth going?","context_scope":["acme/webapp"]}`,
		`{"from":"a","to":"b","query":"q","context_scope":[],"priority":"high","async":true,"timeout":30}`,
	} {
		if _, ok := DecodeQueryParams([]byte(raw)); !ok {
			t.Errorf("%s: not taken; every such question would take the slow path", raw)
		}
	}
	for _, raw := range []string{`{"Query":"x"}`, `{"timeout":1.5}`, `{"from":null}`, `{"context_scope":"a"}`} {
		if _, ok := DecodeQueryParams([]byte(raw)); ok {
			t.Errorf("%s: taken; json.Unmarshal must decide it", raw)
		}
	}
}

// TestQueryResultAppendJSONMeansWhatMarshalDoes: what AppendJSON writes
// decodes to what json.Marshal's bytes decode to, for every field in use
// and escapes; a metadata value it does not write leaves it to
// json.Marshal.
func TestQueryResultAppendJSONMeansWhatMarshalDoes(t *testing.T) {
	progress := 40
	for _, r := range []QueryResult{
		{Summary: "質問を受け付けました", Metadata: map[string]any{"query_id": "q-1", "state": "escalated"}},
		{},
		{Summary: "a \"b\" <c> & \u2028 \x01 \xff", Progress: &progress, Blockers: []string{"CI red", ""}, Completed: true,
			ContextRefs: []ContextRef{{Type: "commit", Ref: "abc123", Summary: "fix login"}, {Type: "file", Ref: "a.go"}},
			Metadata:    map[string]any{"z": true, "a": 3, "m": int64(-7), "n": nil, "s": []string{"x"}, "e": []string(nil), "\xff": "k"}},
		{Blockers: []string{}, ContextRefs: []ContextRef{}, Metadata: map[string]any{}},
	} {
		got, ok := r.AppendJSON(nil)
		if !ok {
			t.Fatalf("%+v: not written", r)
		}
		want, _ := json.Marshal(r)
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s is not JSON: %v", got, err)
		}
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("AppendJSON:   %s\njson.Marshal: %s", got, want)
		}
	}
	if _, ok := (QueryResult{Metadata: map[string]any{"confidence": 0.5}}).AppendJSON(nil); ok {
		t.Error("a float in the metadata was written; its format is json.Marshal's to choose")
	}
}
