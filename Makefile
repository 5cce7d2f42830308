# aoi — build, run and test. cgo is on (go-sqlite3); every go command uses the
# sqlite_fts5 tag. Never clean the Go build cache: cold builds are slow.

GO        ?= go
TAGS      := sqlite_fts5
BIN       := bin/aoi
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X main.buildVersion=$(VERSION) -X main.buildCommit=$(COMMIT)
GOFLAGS_T := -tags $(TAGS)
export CGO_ENABLED := 1

.PHONY: build run test unit fuzz e2e bench eval lint golden install mcp-deps clean-bin

build:
	$(GO) build $(GOFLAGS_T) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/aoi

# run opens the interface on the default data dir; the first run creates an
# identity and a config there and says where (no tailnet key needed).
run: build
	./$(BIN) $(ARGS)

# test is what CI runs (.ci/run): lint (gofmt, go vet), unit + integration
# tests, a short fuzz of the JSON-RPC decoder, and the tmux end-to-end script
# when tmux is present.
test: lint unit fuzz e2e

unit: mcp-deps
	$(GO) test $(GOFLAGS_T) -timeout 20m ./...

fuzz:
	$(GO) test $(GOFLAGS_T) -run '^$$' -fuzz FuzzDecode -fuzztime 10s ./rpc

e2e: build
	@if command -v tmux >/dev/null 2>&1 && [ -f test/e2e/tui.sh ]; then bash test/e2e/tui.sh ./$(BIN); \
	else echo "e2e: tmux not installed, skipping the tmux script (CI installs it)"; fi

# mcp-deps installs the npm packages the MCP interoperability tests use
# (official SDK client, reference server), once.
mcp-deps:
	@if [ -f test/mcp/package.json ] && command -v npm >/dev/null 2>&1 && [ ! -d test/mcp/node_modules ]; then \
		cd test/mcp && npm ci --no-audit --no-fund --loglevel=error; fi

# BenchmarkAnswerLarge runs apart with 300 answers: its p99 is a real
# percentile only over that many (Go's default time gives it 30-60).
bench: build
	$(GO) test $(GOFLAGS_T) -run '^$$' -bench . -skip AnswerLarge -benchmem -timeout 60m ./...
	$(GO) test $(GOFLAGS_T) -run '^$$' -bench AnswerLarge -benchtime 300x -timeout 60m ./agent/secretary/
	./$(BIN) bench --concurrency 8 --duration 10s
	./$(BIN) bench --scale 1000

# eval measures the secretary's answers on real repositories (README,
# "Evaluating the secretary"); not part of test. It clones from GitHub, or
# from local copies in $AOI_EVAL_REPOS_DIR. EVAL_ARGS: -v, --json, -work DIR.
eval:
	@$(GO) run $(GOFLAGS_T) ./cmd/aoi-eval $(EVAL_ARGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(GOFLAGS_T) ./...

golden:
	$(GO) test $(GOFLAGS_T) ./tui/... -update

install:
	$(GO) install $(GOFLAGS_T) -ldflags '$(LDFLAGS)' ./cmd/aoi
