package server

import (
	"context"
	"errors"
	"time"

	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/store/postgres"
)

// startTimeout bounds opening a PostgreSQL store at start: connecting, migrating, waiting
// for a server starting at the same time to seed, and seeding.
const startTimeout = time.Minute

var errStoreAndDataDir = errors.New("--store and --data-dir both say where the state lives: give one (--data-dir keeps it embedded on this machine, --store in PostgreSQL)")

// newDB returns the database cfg asks for: in PostgreSQL when cfg.Store names one (the
// engine is returned too), else in memory (kept on disk by open when DataDir is set).
func newDB(cfg Config) (*store.DB, *store.Memory, *postgres.Engine, error) {
	if cfg.Store == "" {
		mem := store.NewMemory()
		return store.New(mem), mem, nil, nil
	}
	if cfg.DataDir != "" || cfg.backend != nil {
		return nil, nil, nil, errStoreAndDataDir
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	eng, err := postgres.Open(ctx, cfg.Store, postgres.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	return store.New(eng), nil, eng, nil
}

// openShared makes a PostgreSQL store ready: seeded when it holds no state yet (under a
// lock, so that of servers starting at once one seeds), else taken as it is, as a data
// directory is.
func (s *Server) openShared(eng *postgres.Engine) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	seeded, err := eng.Load(ctx, s.Reset)
	if err == nil && seeded {
		err = s.restore("store")
	}
	if err != nil {
		_ = s.db.Close()
	}
	return err
}
