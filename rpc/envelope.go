package rpc

import (
	"encoding/json"

	"github.com/aoi-protocol/aoi/internal/jsonwalk"
)

// envelope is the members of a Request object that JSON-RPC names, each
// as raw JSON (nil when absent; JSON null is present, as "null"). Other
// members are ignored, as the spec allows.
type envelope struct {
	jsonrpc, method, id, params json.RawMessage
}

// readEnvelope reads the members of the object raw, which must be valid
// JSON (json.Valid): ok is false when raw is not an object. A member named
// twice keeps its last value, as encoding/json does. The values are slices
// of raw, not copies.
//
// It replaces decoding into a map[string]json.RawMessage, which scanned
// the body a second time through encoding/json's state machine and
// allocated the map, its keys and a copy of every value, on every peer
// call.
func readEnvelope(raw []byte) (env envelope, ok bool) {
	ok = jsonwalk.Members(raw, func(key, value []byte) bool {
		env.set(key, value)
		return true
	})
	return env, ok
}

// set keeps value when key (a JSON string) names a member JSON-RPC uses.
func (env *envelope) set(key, value json.RawMessage) {
	name, ok := jsonwalk.Name(key)
	if !ok {
		return
	}
	switch string(name) {
	case "jsonrpc":
		env.jsonrpc = value
	case "method":
		env.method = value
	case "id":
		env.id = value
	case "params":
		env.params = value
	}
}
