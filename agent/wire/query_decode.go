package wire

import (
	"strconv"
	"strings"

	"github.com/aoi-protocol/aoi/internal/jsonwalk"
)

// DecodeQueryParams reads aoi.query's params the way json.Unmarshal into
// a zero QueryParams would, for the params a client sends as a rule:
// members named exactly as the fields, each of its field's JSON type.
// raw must be valid JSON, as the params rpc hands a handler are (it
// validated the body), so the text is not scanned a second time. ok is
// false for anything else (a member named in other letter case, null, a
// wrong type): decode those with json.Unmarshal, which also words the
// error. Every peer question is decoded here, and encoding/json's
// reflection took about 2% of the CPU of a request.
func DecodeQueryParams(raw []byte) (p QueryParams, ok bool) {
	ok = jsonwalk.Members(raw, func(key, value []byte) bool {
		name, isString := jsonwalk.Name(key)
		if !isString {
			return false
		}
		switch string(name) {
		case "from":
			return setString(&p.From, value)
		case "to":
			return setString(&p.To, value)
		case "query":
			return setString(&p.Query, value)
		case "priority":
			return setString(&p.Priority, value)
		case "context_scope":
			return setStrings(&p.ContextScope, value)
		case "async":
			return setBool(&p.Async, value)
		case "timeout":
			return setInt(&p.Timeout, value)
		}
		// json.Unmarshal ignores an unknown member, unless its name folds
		// onto a field's: then it sets the field.
		return !foldsOntoQueryField(string(name))
	})
	return p, ok
}

var queryFields = []string{"from", "to", "query", "priority", "context_scope", "async", "timeout"}

func foldsOntoQueryField(name string) bool {
	for _, f := range queryFields {
		if strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}

func setString(dst *string, value []byte) bool {
	s, ok := jsonwalk.String(value)
	if ok {
		*dst = s
	}
	return ok
}

func setStrings(dst *[]string, value []byte) bool {
	list := []string{}
	ok := jsonwalk.Elements(value, func(v []byte) bool {
		s, ok := jsonwalk.String(v)
		list = append(list, s)
		return ok
	})
	if ok {
		*dst = list
	}
	return ok
}

func setBool(dst *bool, value []byte) bool {
	switch string(value) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		return false
	}
	return true
}

func setInt(dst *int, value []byte) bool {
	n, err := strconv.Atoi(string(value))
	if err != nil {
		return false // a fraction, an exponent, too large or not a number: json.Unmarshal says which
	}
	*dst = n
	return true
}
