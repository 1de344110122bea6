# kmeta — see README.md. `make demo` and `make test` are the quick start.
GO      ?= go
BIN     ?= bin/kmeta
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short=12 HEAD 2>/dev/null)
# The version and commit a binary says (kmeta --version), for make build and make dist alike.
LDFLAGS  = -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# make dist's archive entries' mtime: the commit's time, so that two builds of one commit agree.
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 315532800)
DIST    ?= dist
# Integration tests start real Kafka and ZooKeeper JVMs, and mostly wait
# on them: cmd/kmeta's real-Kafka tests run beside each other (at most
# three clusters at once, the longest first: kafkatest.Concurrently, which
# needs -parallel above the number of such tests so that all of them wait
# in its queue), and the other packages run one at a time beside cmd/kmeta
# (make test's two lanes, below).
TESTFLAGS ?= -parallel 64 -timeout 80m
FUZZTIME  ?= 20s

.PHONY: build test unit bench pgo fuzz demo demo-kraft fixtures generate check-generated vet clean man dist dist-check

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/kmeta

# Release archives under dist/: a static binary for linux/amd64,
# linux/arm64, darwin/amd64, darwin/arm64 and windows/amd64, each in a
# tar.gz (zip for Windows) with README.md, LICENSE and the man page, and
# SHA256SUMS. Reproducible: two runs on one commit with one Go release write
# identical bytes (internal/dist/doc.go says how). With a warm build cache
# it mostly links (43 s); with an empty one, about 6 CPU-minutes.
dist:
	$(GO) run ./internal/dist -out $(DIST) -version $(VERSION) -ldflags "$(LDFLAGS)" -mtime $(SOURCE_DATE_EPOCH)

# The proof of make dist on kmeta itself: a second make dist from a fresh
# clone at another path with an empty build cache must write the same
# SHA256SUMS; then the linux/amd64 binary from the archive runs --version
# and image on a committed fixture. Needs a clean tree. 21 minutes on
# 2026-12-06 on this 2-core machine shared with other builds (load near
# 20; 7.5 CPU-minutes), nearly all of it the empty-cache build.
dist-check:
	GO=$(GO) ./scripts/distcheck.sh

# The man page, generated from the command tree (kmeta's hidden "man"
# command). It is committed; TestManPageInSync fails when it is stale.
man: build
	$(BIN) man > man/kmeta.1

# The race pass of `make test`: the packages that start goroutines (metalog's
# parallel check and dump pipeline and replay's read-ahead, zkread's
# connection and dump readers, zkfile's origin filler, verify's compare)
# tested again under the race detector. It needs no JVM (KMETA_UNIT_ONLY=1:
# the first pass ran their JVM tests; here they count as skipped) and leaves
# out metalog's long single-goroutine campaigns, which the first pass runs and
# -race would slow to over two minutes: the pass takes about 3 minutes on 2
# cores instead of 7.
RACEPKGS ?= ./metalog ./zkread/... ./verify
RACESKIP ?= ^(TestFastRecordsAgree|TestOneVerdictOnMutants|TestCorruptionMutator)$$

# Unit and real-Kafka/ZooKeeper tests in two lanes made at the same time
# (scripts/testsummary.sh's |||): cmd/kmeta alone in one, the other packages
# one at a time in the other and then the race pass, which so runs while
# cmd/kmeta's last tests do (the other packages were done 205 s before
# cmd/kmeta on 2026-12-06, and the race pass took 57 s after it; run beside
# the whole first pass from the start, it slowed both: .ci/run took 1013 s
# instead of 909 s). Nothing skips silently here: an exported KMETA_UNIT_ONLY
# is removed from the first pass, and the one summary line says how many
# tests of both passed, failed and skipped.
#
# The mutation campaign runs in make test on TEST_MUTANTS mutants per kind
# (seed 1, so a failure reproduces): it needs no JVM but most of the CPU
# make test spends (300 per kind took 9 of its 25 CPU-minutes on 2 cores,
# 100 still 390 s beside the real-Kafka tests); make mutate runs the full
# campaign.
TEST_MUTANTS ?= 30
test: vet
	env -u KMETA_UNIT_ONLY KMETA_MUTANTS=$(TEST_MUTANTS) GO=$(GO) ./scripts/testsummary.sh \
		$(TESTFLAGS) -p 1 $$($(GO) list ./... | grep -vx 'github.com/kmeta/kmeta/cmd/kmeta') \
		--- KMETA_UNIT_ONLY=1 -p 1 -race -short -skip '$(RACESKIP)' $(RACEPKGS) \
		'|||' $(TESTFLAGS) ./cmd/kmeta

# Unit tests only, quickly: no JVM (KMETA_UNIT_ONLY=1: tests that need one
# skip, and are counted), and -short leaves out issue 8's mutation campaign
# (about 4 minutes; it needs no JVM, it is just long: `make mutate` or
# `make test` run it). Nothing else in the repository looks at -short.
unit:
	KMETA_UNIT_ONLY=1 GO=$(GO) ./scripts/testsummary.sh -short ./...

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v zz_generated.go)); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./metalog/... ./zkread/...
	KMETA_BENCH=1 $(GO) test -p 1 -timeout 60m -run 'TestBenchSideBySide|TestBenchVerify|TestBenchMigrate|TestBenchHTMLReport|TestBenchLint|TestBenchHistory|TestBenchRoll|TestBenchBeyondLoading|TestBenchMigrateAlone' -v ./internal/testkit/bench/...

# Profile-guided optimisation: go build uses cmd/kmeta/default.pgo, a CPU
# profile of kmeta on the benchmark's KRaft workloads. Regenerate it after
# large changes to the hot paths (internal/testkit/bench/pgo_test.go says how).
pgo: build
	KMETA_PGO=1 $(GO) test -count=1 -run '^TestPGOProfile$$' -v ./internal/testkit/bench/

# Every `func Fuzz` in the repository, one after the other (go test fuzzes
# one target at a time; the names are anchored because -fuzz is a pattern).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzBatchReader$$' -fuzztime $(FUZZTIME) ./metalog
	$(GO) test -run '^$$' -fuzz '^FuzzFastRecords$$' -fuzztime $(FUZZTIME) ./metalog
	$(GO) test -run '^$$' -fuzz '^FuzzReplay$$' -fuzztime $(FUZZTIME) ./metalog
	$(GO) test -run '^$$' -fuzz '^FuzzSmallFiles$$' -fuzztime $(FUZZTIME) ./metalog
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeMetadata$$' -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz '^FuzzValidateMetadata$$' -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz '^FuzzTranscodeMetadata$$' -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz '^FuzzDecoderReuse$$' -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeControl$$' -fuzztime $(FUZZTIME) ./metalog/records
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeZnode$$' -fuzztime $(FUZZTIME) ./zkread
	$(GO) test -run '^$$' -fuzz '^FuzzReadDump$$' -fuzztime $(FUZZTIME) ./zkread
	$(GO) test -run '^$$' -fuzz '^FuzzFastJSON$$' -fuzztime $(FUZZTIME) ./zkread
	$(GO) test -run '^$$' -fuzz '^FuzzWireDecode$$' -fuzztime $(FUZZTIME) ./zkread
	$(GO) test -run '^$$' -fuzz '^FuzzParseCons$$' -fuzztime $(FUZZTIME) ./zkread
	$(GO) test -run '^$$' -fuzz '^FuzzParseAdminConnections$$' -fuzztime $(FUZZTIME) ./zkread
	$(GO) test -run '^$$' -fuzz '^FuzzSnapshot$$' -fuzztime $(FUZZTIME) ./zkread/zkfile
	$(GO) test -run '^$$' -fuzz '^FuzzTxn$$' -fuzztime $(FUZZTIME) ./zkread/zkfile
	$(GO) test -run '^$$' -fuzz '^FuzzAdler$$' -fuzztime $(FUZZTIME) ./zkread/zkfile
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./javaprops
	$(GO) test -run '^$$' -fuzz '^FuzzFormatReadsBack$$' -fuzztime $(FUZZTIME) ./javaprops

# Issue 8's mutation campaign: internal/testkit/mutate's mutants of every file kind
# through the built binary, every command and format. KMETA_MUTANTS=N per
# kind (default 300), KMETA_MUTATE_REPORT_ONLY=1 reports without failing.
# Issue 29's (TestMutateCampaignHostile): client settings, server.properties,
# a migration dump, survey/rebuild copies, lint exceptions and a Kafka peer
# that misbehaves; make test runs it with 24 inputs per surface (about 45 s),
# make mutate with KMETA_HOSTILE_MUTANTS (default 200).
KMETA_HOSTILE_MUTANTS ?= 200
.PHONY: mutate
mutate:
	KMETA_HOSTILE_MUTANTS=$(KMETA_HOSTILE_MUTANTS) $(GO) test -count=1 -timeout 60m -run '^TestMutateCampaign(Hostile)?$$' -v ./cmd/kmeta/

# The quorum disaster-recovery drills on real Kafka (issue 20): 4.4.0 with a
# dynamic quorum losing two controllers, then all three; 3.9.2 static voters
# losing two. About 2.5 minutes; make test runs the shorter rebuild proof.
# The online-migration drills (issue 21): rollback from KRaftMigration,
# KRaftDualWriting and KRaftPostMigration, the walk on Kafka 3.5.2, and the
# harness's own hand-written migration and rollback; about 10 more minutes.
# lint's rules on Kafka 3.9.2 KRaft (make test runs 4.4.0 KRaft and 3.9.2
# ZooKeeper mode); about 1.5 minutes.
.PHONY: drill
drill:
	KMETA_DRILL=1 $(GO) test -p 1 -count=1 -timeout 40m -run '^(TestQuorumRebuild(Static)?Kafka|TestOnlineRollbackKafka|TestOnlineMigrationWalkOldKafka|TestLintRulesOnKafka39KRaft)$$' -v ./cmd/kmeta/
	KMETA_DRILL=1 $(GO) test -p 1 -count=1 -timeout 10m -run '^TestStageRunnerMigration$$' -v ./internal/testkit/kafkatest/

# The main job, the full migration rehearsal: a throwaway Kafka 3.9
# ZooKeeper-mode cluster with data is planned, stopped, migrated offline by
# kmeta, started as Kafka 4.4 KRaft, verified, and its messages read back.
demo: build
	./scripts/rehearsal.sh

# A tour of what kmeta reads from a real KRaft cluster's metadata log
# (KMETA_DEMO_OFFLINE=1: from the committed fixture, no JVM).
demo-kraft: build
	./scripts/demo.sh

# Regenerate every committed real-Kafka fixture: testdata/kraft (Kafka 3.9.2
# and 4.4.0 in KRaft mode, with the DumpLogSegments goldens in dumps/),
# testdata/zk (ZooKeeper + Kafka 3.9.2), testdata/compressed (Kafka's
# producer, one segment per codec) and testdata/features (Kafka's feature
# and storage tools, the gating tables, the catalog golden). Review the
# diff: every file is what real Kafka printed or wrote.
fixtures:
	$(GO) test -count=1 -timeout 30m -run '^TestGenerateFixtures$$' -v ./internal/testkit/kafkatest/ -args -generate
	$(GO) test -count=1 -timeout 30m -run '^TestGenerateFixture$$' -v ./zkread/ -args -zk-generate
	$(GO) test -count=1 -timeout 30m -tags fixtures -run '^TestGenerateCompressedFixtures$$' -v ./metalog/
	$(GO) test -count=1 -timeout 30m -p 1 -run '^(TestRealKafkaFeatures|TestKafkaGating|TestKafka39Format|TestFormatCheckpoints|TestGolden)$$' ./features/ -args -update-kafka -update

generate:
	$(GO) generate ./...

# CI: the generated record code is what the generator makes from records.def.
check-generated: generate
	git diff --exit-code -- metalog/records/zz_generated.go

clean:
	rm -rf bin dist

# The command reference, docs/reference, generated from the command tree
# and run on the committed fixtures (kmeta's hidden "docs" command). It is
# committed; TestDocsInSync fails when it is stale.
.PHONY: docs
docs: build
	COLUMNS= $(BIN) docs docs/reference
