// Package tailnete2e runs real aoi cores over a real in-process tailnet. It
// is a separate test-only package so the main agent test binary does not
// link tsnet.
package tailnete2e
