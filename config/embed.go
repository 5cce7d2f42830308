package config

import (
	"bytes"
	_ "embed"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed aoi.schema.json
var schemaJSON []byte

//go:embed aoi.example.json
var exampleJSON []byte

// SchemaJSON returns the JSON Schema (draft 2020-12) of the config file.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// ExampleJSON returns the annotated working example config.
func ExampleJSON() []byte { return bytes.Clone(exampleJSON) }

const schemaURL = "https://aoi-protocol.github.io/aoi/config/aoi.schema.json"

var compiled = sync.OnceValues(func() (*schemaDoc, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		return nil, err
	}
	return &schemaDoc{schema: sch, raw: doc}, nil
})

// schemaDoc is the compiled schema plus its parsed document, which error
// messages consult for descriptions and valid key names.
type schemaDoc struct {
	schema *jsonschema.Schema
	raw    any
}
