// Package pgtest gives tests a PostgreSQL schema of their own on the test cluster, whose URL
// is in UNDERSTUDY_TEST_POSTGRES (.ci/postgres.sh start sets it). Without that variable the
// tests that need PostgreSQL skip, except under CI=true, where they fail: CI cannot pass
// without them.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store/postgres"
)

// EnvURL names the environment variable holding the test cluster's URL.
const EnvURL = "UNDERSTUDY_TEST_POSTGRES"

// Base returns the test cluster's URL, or skips t (fails it under CI=true) when there is
// none.
func Base(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set: CI runs the PostgreSQL tests (.ci/postgres.sh start sets it)", EnvURL)
		}
		t.Skipf("%s is not set: run `eval \"$(.ci/postgres.sh start)\"` to run the PostgreSQL tests", EnvURL)
	}
	return u
}

// URL returns the test cluster's URL naming a new schema (search_path), dropped when t
// ends: a database of its own for t, so that tests run in parallel.
func URL(t testing.TB) string {
	t.Helper()
	u, err := postgres.WithSchema(Base(t), NewSchema())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Drop(u); err != nil {
			t.Errorf("pgtest: dropping the schema of %s: %v", u, err)
		}
	})
	return u
}

// NewSchema returns a schema name no other test uses.
func NewSchema() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return "test_" + hex.EncodeToString(b)
}

// Drop removes the schema url names.
func Drop(url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return postgres.DropSchema(ctx, url)
}
