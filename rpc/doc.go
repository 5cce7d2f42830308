// Package rpc is aoi's JSON-RPC 2.0 layer: the codec (single requests,
// batches, notifications, every id type), the error type with the AOI
// codes, the server (an http.Handler at POST /aoi/v1/rpc whose middleware
// runs body limit → identify caller → authenticate → rate limit →
// dispatch → audit), the client (timeouts, retries with back-off for
// retryable failures only), and two transports: direct mutual TLS with
// pinned ed25519 certificates, and the owner-only Unix control socket.
//
// It knows nothing of queries, ACLs or storage: the agent registers
// handlers, maps callers to agents in Options.Authenticate and makes calls
// durable in Options.Audit.
package rpc
