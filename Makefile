# understudy: `make run` serves every API on 127.0.0.1:8080; `make test` runs what CI runs.

GO          ?= go
SPECTRAL    := npx --yes @stoplight/spectral-cli@6.16.3
SPECS       := $(wildcard specs/*.yaml)
FUZZTIME    ?= 10s
ADDR        ?= 127.0.0.1:8080

.PHONY: run build generate check-generate lint fmt-check vet unit fuzz test

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

vet:
	$(GO) vet ./...

unit: ## go test -race over everything
	$(GO) test -race -count=1 ./...

fuzz: ## run each fuzz target for $(FUZZTIME)
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) ./internal/condition/
	$(GO) test -run '^$$' -fuzz '^FuzzAnalyze$$' -fuzztime $(FUZZTIME) ./internal/sla/
	$(GO) test -run '^$$' -fuzz '^FuzzParseScope$$' -fuzztime $(FUZZTIME) ./server/authorization/
	$(GO) test -run '^$$' -fuzz '^FuzzLabels$$' -fuzztime $(FUZZTIME) ./server/compute/
	$(GO) test -run '^$$' -fuzz '^FuzzQuickCheck$$' -fuzztime $(FUZZTIME) ./server/validate/
	$(GO) test -run '^$$' -fuzz '^FuzzPattern$$' -fuzztime $(FUZZTIME) ./server/validate/
	$(GO) test -run '^$$' -fuzz '^FuzzString$$' -fuzztime $(FUZZTIME) ./internal/jsonout/
	$(GO) test -run '^$$' -fuzz '^FuzzAuthorizationRequest$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzAccountsRequest$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzHostedFlowRequest$$' -fuzztime $(FUZZTIME) ./server/
	$(GO) test -run '^$$' -fuzz '^FuzzComputeRequest$$' -fuzztime $(FUZZTIME) ./server/

test: lint check-generate fmt-check vet unit fuzz ## everything CI runs

.PHONY: bench
bench: ## benchmark understudy against a bare Echo server (BENCHFLAGS="-duration 3s -ops roleassign")
	$(GO) run ./bench $(BENCHFLAGS)
