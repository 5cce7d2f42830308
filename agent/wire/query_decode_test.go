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
		got, ok := DecodeQueryParams(raw)
		if !ok {
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
