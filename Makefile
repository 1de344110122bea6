# kmeta — see README.md. `make demo` and `make test` are the quick start.
GO      ?= go
BIN     ?= bin/kmeta
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
# Integration tests start real Kafka and ZooKeeper JVMs; one package at a
# time keeps a 2-core machine from starving them.
TESTFLAGS ?= -p 1 -timeout 80m
FUZZTIME  ?= 20s

.PHONY: build test unit bench fuzz demo fixtures generate vet clean

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o $(BIN) ./cmd/kmeta

# Unit and real-Kafka/ZooKeeper tests. Nothing skips silently here.
test: vet
	$(GO) test $(TESTFLAGS) ./...

# Unit tests only: no JVM; tests that need one skip.
unit:
	KMETA_UNIT_ONLY=1 $(GO) test ./...

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v zz_generated.go)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./metalog/... ./zkread/...
	KMETA_BENCH=1 $(GO) test -p 1 -timeout 60m -run 'TestBenchSideBySide' -v ./internal/bench/...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzBatchReader -fuzztime $(FUZZTIME) ./metalog
	$(GO) test -run '^$$' -fuzz FuzzDecodeMetadata -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz FuzzValidateMetadata -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz FuzzTranscodeMetadata -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz FuzzDecodeZnode -fuzztime $(FUZZTIME) ./zkread
	$(GO) test -run '^$$' -fuzz FuzzSnapshot -fuzztime $(FUZZTIME) ./zkread/zkfile
	$(GO) test -run '^$$' -fuzz FuzzTxn -fuzztime $(FUZZTIME) ./zkread/zkfile

# The main job: fetch and start real Kafka, let it write a metadata log, and
# show what kmeta reads from it.
demo: build
	./scripts/demo.sh

# Regenerate the committed real-Kafka fixtures: testdata/kraft (Kafka 3.9.2
# and 4.4.0 in KRaft mode) and testdata/zk (ZooKeeper + Kafka 3.9.2).
fixtures:
	$(GO) test -count=1 -timeout 30m -run '^TestGenerateFixtures$$' -v ./internal/kafkatest/ -args -generate
	$(GO) test -count=1 -timeout 30m -run '^TestGenerateFixture$$' -v ./zkread/ -args -zk-generate

generate:
	$(GO) generate ./...

clean:
	rm -rf bin
