# understudy: `make run` serves every API on 127.0.0.1:8080; `make test` runs the tests (CI also runs `make image-test`).

GO          ?= go
SPECTRAL    := npx --yes @stoplight/spectral-cli@6.16.3
SPECS       := $(wildcard specs/*.yaml)
# Each fuzz target runs for a number of executions, about ten seconds' worth on the 2-core
# reference machine. A count, not a duration: Go 1.26's fuzzing coordinator can report a
# spurious "context deadline exceeded" failure when a -fuzztime duration runs out
# (go.dev/issue/75804, fixed in Go 1.27). FUZZTIME=1m (or 1000000x) overrides every budget.
# FuzzValidJSON's seeds nest 10,000 deep: minimizing a new input that large for the default
# 60 s would be most of its run, so its minimizing is capped.
FUZZTIME    ?=
fuzz_budget  = $(or $(FUZZTIME),$(1))
ADDR        ?= 127.0.0.1:8080
DOCKER      ?= docker
IMAGE       ?= understudy:dev
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: run build generate check-generate lint fmt-check vet unit unit-postgres readme fuzz test console-shots

run: ## serve every API on $(ADDR)
	$(GO) run ./cmd/understudy --addr $(ADDR)

build: ## build ./understudy
	$(GO) build -o understudy ./cmd/understudy

generate: ## regenerate gen/ from specs/
	$(GO) generate ./...

check-generate: generate ## fail when the committed generated code is stale
	@git diff --exit-code --stat -- gen/ || (echo "gen/ is stale: run 'make generate' and commit the result" >&2; exit 1)
	@test -z "$$(git status --porcelain -- gen/)" || (git status --porcelain -- gen/; echo "gen/ has files that are not committed" >&2; exit 1)

lint: ## lint the specs with Spectral (spectral:oas), zero errors allowed
	$(SPECTRAL) lint --ruleset .spectral.yaml --fail-severity error $(SPECS)

fmt-check:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt would change the files above" >&2; exit 1)

vet: ## go vet over the module, and over bench/ and understudytc/ (modules of their own)
	$(GO) vet ./...
	cd bench && $(GO) vet ./...
	cd understudytc && $(GO) vet ./...

unit: ## go test -race over everything (the PostgreSQL store's own tests too when UNDERSTUDY_TEST_POSTGRES is set)
	$(GO) test -race -count=1 ./...

# The API suites again with every server on PostgreSQL (understudytest's UNDERSTUDY_TEST_STORE),
# on the cluster `eval "$$(.ci/postgres.sh start)"` starts: the packages that start servers.
# Without a cluster it says so and passes, except under CI=true. TestDataDirInUse is about
# data directories only. The Google Cloud CLI's and the Node SDKs' suites are left to the
# run on memory: they check what those clients send and read, which the store does not
# change, each API's own suites here check the store's side of the same operations, and
# their child processes are most of understudytest's time.
unit-postgres: ## the API test suites on the PostgreSQL store
	@if [ -z "$$UNDERSTUDY_TEST_POSTGRES" ]; then \
		if [ "$$CI" = true ]; then echo "UNDERSTUDY_TEST_POSTGRES is not set: CI runs the suites on PostgreSQL" >&2; exit 1; fi; \
		echo "unit-postgres: skipped, UNDERSTUDY_TEST_POSTGRES is not set (eval \"\$$(.ci/postgres.sh start)\")"; exit 0; \
	fi; \
	UNDERSTUDY_TEST_STORE="$$UNDERSTUDY_TEST_POSTGRES" $(GO) test -race -count=1 -skip '^TestDataDirInUse$$|^TestGoogleCloudCLI|^TestNodeRecipes$$' \
		./server/ ./server/authorization/ ./server/accounts/ ./server/compute/ ./understudytest/

console-shots: ## retake docs/console/*.png: the console's browser test, in headless Chromium, keeps a screenshot of each page
	mkdir -p docs/console
	UNDERSTUDY_SCREENSHOTS=$(CURDIR)/docs/console $(GO) test -count=1 -run '^TestBrowserConsole$$' ./server/console/

readme: ## run the shell blocks of README.md and docs/ against a built server (the other blocks are held by understudytest's TestDocBlocks)
	.ci/doc-blocks.sh

fuzz: ## run each fuzz target for its budget of executions (or for $(FUZZTIME))
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(call fuzz_budget,700000x) ./internal/condition/
	$(GO) test -run '^$$' -fuzz '^FuzzAnalyze$$' -fuzztime $(call fuzz_budget,250000x) ./internal/sla/
	$(GO) test -run '^$$' -fuzz '^FuzzParseScope$$' -fuzztime $(call fuzz_budget,80000x) ./server/authorization/
	$(GO) test -run '^$$' -fuzz '^FuzzLabels$$' -fuzztime $(call fuzz_budget,15000x) ./server/compute/
	$(GO) test -run '^$$' -fuzz '^FuzzParseRef$$' -fuzztime $(call fuzz_budget,50000x) ./server/compute/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(call fuzz_budget,200000x) ./internal/gcefilter/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(call fuzz_budget,100000x) ./internal/fieldsel/
	$(GO) test -run '^$$' -fuzz '^FuzzValidJSON$$' -fuzztime $(call fuzz_budget,60000x) -fuzzminimizetime 1000x ./server/validate/
	$(GO) test -run '^$$' -fuzz '^FuzzAuthorizationRequest$$' -fuzztime $(call fuzz_budget,50000x) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzAccountsRequest$$' -fuzztime $(call fuzz_budget,40000x) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzHostedFlowRequest$$' -fuzztime $(call fuzz_budget,20000x) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzComputeRequest$$' -fuzztime $(call fuzz_budget,40000x) ./server/

test: lint check-generate fmt-check vet unit unit-postgres readme fuzz ## everything CI runs but the image

.PHONY: image image-test
image: ## build the container image $(IMAGE): the static binary, built here, FROM scratch
	rm -rf build/image && mkdir -p build/image/data build/image/tmp
	CGO_ENABLED=0 GOOS=linux $(GO) build -trimpath -ldflags "-s -w -X main.version=$(VERSION)" -o build/image/understudy ./cmd/understudy
	$(DOCKER) build --build-arg VERSION=$(VERSION) -t $(IMAGE) -f Dockerfile build/image

# The Docker daemon is taken to publish ports on this machine (the smoke test calls
# 127.0.0.1): testcontainers-go is told so, since inside a container it would otherwise look
# for them at the default gateway. Its reaper (Ryuk) is off: its image cannot be pulled here,
# and the tests terminate their containers themselves.
image-test: image ## smoke-test $(IMAGE) under docker run, then run understudytc's tests against it
	IMAGE=$(IMAGE) .ci/smoke-image.sh
	cd understudytc && UNDERSTUDY_IMAGE=$(IMAGE) TESTCONTAINERS_RYUK_DISABLED=true \
		TESTCONTAINERS_HOST_OVERRIDE=$${TESTCONTAINERS_HOST_OVERRIDE:-localhost} $(GO) test -count=1 ./...

.PHONY: bench pgo
pgo: ## refresh cmd/understudy/default.pgo, the profile go build optimizes the binary with (needs wrk)
	bench/wrk/pgo.sh

bench: ## benchmark understudy against a bare Echo server (BENCHFLAGS="-duration 3s -ops roleassign")
	cd bench && $(GO) run . $(BENCHFLAGS)
