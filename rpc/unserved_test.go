package rpc

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRequestsNetHTTPRefusesAreAudited: a malformed request line, a
// header over the limit, an unknown HTTP version and a request cut off
// never reach ServeHTTP (net/http answers or closes itself); each is
// still audited once, as a refusal saying what to send. A good request
// on a connection that then closes adds no such row.
func TestRequestsNetHTTPRefusesAreAudited(t *testing.T) {
	audit := &auditLog{}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = NewHTTPServer(specServer(t, Options{Audit: audit.hook}), nil)
	ts.Start()
	defer ts.Close()
	body := `{"jsonrpc":"2.0","method":"get_data","id":1}`
	tests := []struct {
		name, send string
		status     int // 0: no reply expected
	}{
		{"malformed header", "POST " + Path + " HTTP/1.1\r\nHost: aoi\r\nno colon here\r\n\r\n", http.StatusBadRequest},
		{"header too large", "POST " + Path + " HTTP/1.1\r\nHost: aoi\r\nX-Big: " + strings.Repeat("a", 80<<10) + "\r\n\r\n", http.StatusRequestHeaderFieldsTooLarge},
		{"unknown version", "POST " + Path + " HTTP/9.9\r\nHost: aoi\r\n\r\n", http.StatusHTTPVersionNotSupported},
		{"cut off", "POST " + Path + " HTTP/1.1\r\nHo", 0},
		{"good request", "POST " + Path + " HTTP/1.1\r\nHost: aoi\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(audit.all())
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(conn, tt.send); err != nil {
				t.Fatal(err)
			}
			if tt.status != 0 {
				resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != tt.status {
					t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
				}
			}
			conn.Close()
			want := "never reached aoi"
			if tt.status == http.StatusOK {
				want = "" // the call's own row only
			}
			deadline := time.Now().Add(5 * time.Second)
			for len(audit.all()) == before && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond) // a second row would come now
			recs := audit.all()[before:]
			if len(recs) != 1 {
				t.Fatalf("audit rows %+v, want one", recs)
			}
			got := ""
			if recs[0].Err != nil {
				got = recs[0].Err.Reason()
			}
			if (want == "") != (got == "") || !strings.Contains(got, want) {
				t.Errorf("audit row's error %q, want %q", got, want)
			}
		})
	}
}
