package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// FuzzEnvelope: readEnvelope reads every valid body as encoding/json's
// map decoding does — the same members, the same values, and "not an
// object" exactly when that decoding fails or gives null. Its seeds (run
// by go test) are awkward objects and the FuzzDecode corpus.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"aoi.query","params":{"q":"{[\"]}"},"id":1}`,
		` { "id" : "a\"b" , "method":"m" ,"params":[1,{"a":[]}] } `,
		`{"\u006dethod":"m","id":null,"params":{}}`,
		`{"method":"a","method":"b","METHOD":"c","id":-1.5e3}`,
		`{"x":true,"y":false,"z":null,"id":0,"params":[],"jsonrpc":"2.0"}`,
		`{"params":"\\\\","id":"\\"}`,
		`{}`, `[]`, `null`, `"s"`, `12`, `{"a":{"b":{"c":[["]"]]}}}`,
		`{"id":"日本語","method":"\ud83d\ude00"}`,
	} {
		f.Add([]byte(s))
	}
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzDecode", "*"))
	for _, p := range seeds {
		if body, ok := corpusBytes(p); ok {
			f.Add(body)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if !json.Valid(body) {
			return
		}
		var want map[string]json.RawMessage
		wantObject := json.Unmarshal(body, &want) == nil && want != nil
		got, ok := readEnvelope(body)
		if ok != wantObject {
			t.Fatalf("%q: readEnvelope says object=%v, encoding/json %v", body, ok, wantObject)
		}
		if !ok {
			return
		}
		for name, value := range map[string]json.RawMessage{"jsonrpc": got.jsonrpc, "method": got.method, "id": got.id, "params": got.params} {
			w, present := want[name]
			if (value != nil) != present || !bytes.Equal(value, w) {
				t.Fatalf("%q: member %q = %q (present %v), encoding/json %q (present %v)", body, name, value, value != nil, w, present)
			}
		}
	})
}

// corpusBytes reads the []byte value of a "go test fuzz v1" corpus file.
func corpusBytes(path string) ([]byte, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) < 2 || !bytes.HasPrefix(lines[1], []byte("[]byte(")) {
		return nil, false
	}
	lit := bytes.TrimSuffix(bytes.TrimPrefix(lines[1], []byte("[]byte(")), []byte(")"))
	s, err := strconv.Unquote(string(lit))
	if err != nil {
		return nil, false
	}
	return []byte(s), true
}

// appended is a result that writes itself: as "appended" when it can,
// else it declines and json.Marshal writes its field.
type appended struct{ Can bool }

func (a appended) AppendJSON(b []byte) ([]byte, bool) {
	if !a.Can {
		return b, false
	}
	return append(b, `"appended"`...), true
}

// TestResultThatAppendsItself: a JSONAppender result is written by its
// own AppendJSON, and by json.Marshal when it declines.
func TestResultThatAppendsItself(t *testing.T) {
	s := specServer(t, Options{MaxBodyBytes: 1 << 16})
	s.Handle("append", func(ctx context.Context, c *Call) (any, error) {
		var p appended
		return p, c.Bind(&p)
	})
	for params, want := range map[string]string{`{"Can":true}`: `"appended"`, `{"Can":false}`: `{"Can":false}`} {
		resp, _ := s.ServeRPC(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"append","params":`+params+`}`), Caller{Kind: "test"})
		if got := `{"jsonrpc":"2.0","result":` + want + `,"id":1}`; string(resp) != got {
			t.Errorf("params %s: %s, want %s", params, resp, got)
		}
	}
}
