package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// MaxTextBytes bounds Result.Text and a resource's text; the rest is cut.
const MaxTextBytes = 1 << 20

// Result is what a tool call returned.
type Result struct {
	// Text is the result's text content joined by newlines (other content
	// is named in brackets, e.g. "[image image/png]"), at most MaxTextBytes.
	Text string
	// IsError is the server's own verdict: the tool ran and failed.
	IsError bool
	// Raw is the complete CallToolResult as the server sent it.
	Raw json.RawMessage
}

// ResourceContent is one item of a read resource.
type ResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mime_type,omitempty"`
	// Text is the text of a text resource (at most MaxTextBytes); a binary
	// resource has none and BlobBytes > 0.
	Text      string `json:"text,omitempty"`
	BlobBytes int    `json:"blob_bytes,omitempty"`
}

// UnavailableError says the server cannot be reached now. RetryIn > 0 when
// the bridge is waiting before its next attempt.
type UnavailableError struct {
	Endpoint string
	RetryIn  time.Duration
	Err      error
}

func (e *UnavailableError) Error() string {
	s := fmt.Sprintf("the work AI's MCP server %s is not reachable", e.Endpoint)
	if e.Err != nil {
		s += " (" + e.Err.Error() + ")"
	}
	if e.RetryIn > 0 {
		return s + fmt.Sprintf("; aoi reconnects in %s, try again then", e.RetryIn.Round(100*time.Millisecond))
	}
	return s + "; check that it runs and that secretary.work_ai.mcp_endpoint is right"
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// LostError says the connection broke during a call (the server process
// exited, or the HTTP session or connection dropped). The bridge reconnects
// on a later call.
type LostError struct {
	Endpoint string
	Op       string
	Err      error
}

func (e *LostError) Error() string {
	return fmt.Sprintf("the work AI's MCP server %s went away during %s (%v); aoi reconnects with back-off, try again shortly", e.Endpoint, e.Op, e.Err)
}

func (e *LostError) Unwrap() error { return e.Err }

// Tools lists the server's tools.
func (b *Bridge) Tools(ctx context.Context) ([]mcp.Tool, error) {
	var out []mcp.Tool
	err := b.do(ctx, "tools/list", func(ctx context.Context, c *client.Client) error {
		res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
		if err == nil {
			out = res.Tools
		}
		return err
	})
	return out, err
}

// Resources lists the server's resources.
func (b *Bridge) Resources(ctx context.Context) ([]mcp.Resource, error) {
	var out []mcp.Resource
	err := b.do(ctx, "resources/list", func(ctx context.Context, c *client.Client) error {
		res, err := c.ListResources(ctx, mcp.ListResourcesRequest{})
		if err == nil {
			out = res.Resources
		}
		return err
	})
	return out, err
}

// ReadResource reads one resource of the server.
func (b *Bridge) ReadResource(ctx context.Context, uri string) ([]ResourceContent, error) {
	var out []ResourceContent
	err := b.do(ctx, "reading "+uri, func(ctx context.Context, c *client.Client) error {
		req := mcp.ReadResourceRequest{}
		req.Params.URI = uri
		res, err := c.ReadResource(ctx, req)
		if err != nil {
			return err
		}
		for _, rc := range res.Contents {
			switch v := rc.(type) {
			case mcp.TextResourceContents:
				out = append(out, ResourceContent{URI: v.URI, MIMEType: v.MIMEType, Text: bound(v.Text)})
			case mcp.BlobResourceContents:
				out = append(out, ResourceContent{URI: v.URI, MIMEType: v.MIMEType, BlobBytes: len(v.Blob) * 3 / 4})
			}
		}
		return nil
	})
	return out, err
}

// CallTool calls a tool with arguments. err is set when the call could not
// be made or answered (unreachable, lost, timed out, refused); a tool that
// ran and failed returns Result.IsError with err nil.
func (b *Bridge) CallTool(ctx context.Context, tool string, args map[string]any) (Result, error) {
	if b.opts.AllowTool != nil && !b.opts.AllowTool(tool) {
		return Result{}, fmt.Errorf("tool %q is not declared by any mcp_tool task in the config; aoi only calls configured tools", tool)
	}
	var out Result
	err := b.do(ctx, "tool "+tool, func(ctx context.Context, c *client.Client) error {
		req := mcp.CallToolRequest{}
		req.Params.Name = tool
		req.Params.Arguments = args
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return err
		}
		out = resultOf(res)
		return nil
	})
	return out, err
}

// do runs one request on a live connection within the call timeout and
// turns failures into errors a person can act on.
func (b *Bridge) do(ctx context.Context, op string, f func(context.Context, *client.Client) error) error {
	c, err := b.conn(ctx)
	if err != nil {
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, b.opts.CallTimeout)
	defer cancel()
	err = f(callCtx, c)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%s on the work AI's MCP server %s: %w", op, b.ep.String(), ctx.Err())
	case callCtx.Err() != nil:
		return fmt.Errorf("%s on the work AI's MCP server %s did not answer within %s", op, b.ep.String(), b.opts.CallTimeout)
	case isTransport(err):
		b.lost(c, err)
		return &LostError{Endpoint: b.ep.String(), Op: op, Err: err}
	}
	return fmt.Errorf("the work AI's MCP server %s refused %s: %w", b.ep.String(), op, err)
}

// isTransport tells a broken connection from an error the server sent.
func isTransport(err error) bool {
	var te *transport.Error
	return errors.As(err, &te) || errors.Is(err, transport.ErrTransportClosed) || errors.Is(err, transport.ErrSessionTerminated)
}

// resultOf flattens a CallToolResult.
func resultOf(res *mcp.CallToolResult) Result {
	raw, _ := json.Marshal(res) // a decoded result re-encodes
	var parts []string
	for _, c := range res.Content {
		switch v := c.(type) {
		case mcp.TextContent:
			parts = append(parts, v.Text)
		case mcp.ImageContent:
			parts = append(parts, "[image "+v.MIMEType+"]")
		case mcp.AudioContent:
			parts = append(parts, "[audio "+v.MIMEType+"]")
		case mcp.ResourceLink:
			parts = append(parts, "[resource "+v.URI+"]")
		case mcp.EmbeddedResource:
			if t, ok := v.Resource.(mcp.TextResourceContents); ok {
				parts = append(parts, t.Text)
			} else {
				parts = append(parts, "[resource]")
			}
		}
	}
	if len(parts) == 0 && len(res.RawStructuredContent) > 0 {
		parts = append(parts, string(res.RawStructuredContent))
	}
	return Result{Text: bound(strings.Join(parts, "\n")), IsError: res.IsError, Raw: raw}
}

// bound cuts s to MaxTextBytes on a character boundary.
func bound(s string) string {
	if len(s) <= MaxTextBytes {
		return s
	}
	cut := MaxTextBytes
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut]
}
