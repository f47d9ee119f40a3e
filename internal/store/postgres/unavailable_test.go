package postgres_test

import (
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/postgres"
	"github.com/understudy-dev/understudy/internal/store/postgres/pgtest"
)

// TestUnavailable: while the database cannot be reached, transactions fail quickly with
// store.ErrUnavailable, never hang, and work again once it is back.
func TestUnavailable(t *testing.T) {
	p, url, _ := pgtest.ProxiedURL(t)
	const timeout = 2 * time.Second
	eng, err := postgres.Open(ctx, url, postgres.Options{Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	db := store.New(eng)
	tab := store.NewTable[string](db, "t")
	if _, err := eng.Load(ctx, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	put := func(v string) error {
		return db.Update(ctx, func(tx *store.Tx) error { return tab.Put(tx, v, v) })
	}
	if err := put("before"); err != nil {
		t.Fatal(err)
	}
	// expectUnavailable checks that a write and a read fail with ErrUnavailable within
	// limit.
	expectUnavailable := func(what string, limit time.Duration) {
		t.Helper()
		start := time.Now()
		if err := put(what); !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s: a write returned %v, want ErrUnavailable", what, err)
		}
		err := db.View(ctx, func(tx *store.Tx) error {
			if _, ok := tab.Get(tx, "before"); ok {
				t.Errorf("%s: a read found a row", what)
			}
			return nil
		})
		if !errors.Is(err, store.ErrUnavailable) {
			t.Errorf("%s: a read returned %v, want ErrUnavailable", what, err)
		}
		if d := time.Since(start); d > limit {
			t.Errorf("%s: failing took %v, want at most %v", what, d, limit)
		}
	}
	expectBack := func(what string) {
		t.Helper()
		if err := put(what); err != nil {
			t.Fatalf("%s: a write after the database came back: %v", what, err)
		}
	}

	// Down: connections refused and cut, as while the database restarts.
	p.Down()
	expectUnavailable("down", time.Second)
	p.Up()
	expectBack("up again")

	// Cut in the middle of a transaction: the write is not half done, and the next works.
	err = db.Update(ctx, func(tx *store.Tx) error {
		if err := tab.Put(tx, "half", "half"); err != nil {
			return err
		}
		p.Down()
		return tab.Put(tx, "other half", "other half")
	})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("a transaction cut midway returned %v, want ErrUnavailable", err)
	}
	p.Up()
	expectBack("after the cut")
	_ = db.View(ctx, func(tx *store.Tx) error {
		if _, ok := tab.Get(tx, "half"); ok {
			t.Error("half of a cut transaction was kept")
		}
		return nil
	})

	// Silent: connections accepted but never answered (a host gone from the network).
	p.Down()
	p.Silent(true)
	p.Up()
	expectUnavailable("silent", 2*timeout+time.Second)
	p.Down()
	p.Silent(false)
	p.Up()
	expectBack("answering again")
}

// TestOpenUnavailable: a database that cannot be reached at start is reported as
// unavailable, quickly.
func TestOpenUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	start := time.Now()
	_, err = postgres.Open(ctx, "postgres://u@"+addr+"/db?sslmode=disable", postgres.Options{Timeout: time.Second})
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Open = %v, want ErrUnavailable", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Open took %v", d)
	}
	for _, bad := range []string{"mysql://x", "postgres://x/db?search_path=a,b", "postgres://x:y@[/db"} {
		if _, err := postgres.Open(ctx, bad, postgres.Options{}); err == nil || errors.Is(err, store.ErrUnavailable) {
			t.Errorf("Open(%q) = %v, want an error about the URL", bad, err)
		} else if strings.Contains(err.Error(), ":y@") {
			t.Errorf("Open(%q) shows the password: %v", bad, err)
		}
	}
}
