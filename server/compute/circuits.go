package compute

import (
	"context"
	"fmt"

	"github.com/understudy-dev/understudy/internal/store"
)

// SetCircuit sets the operational state of an interconnect (region "") or an attachment
// directly, as the admin API's circuit control asks: down, it is inactive in every group's
// operational status without a change to its configuration. It returns the resource's path;
// a resource that is not there (or not yet readable) is store.ErrNotFound.
func (s *Server) SetCircuit(project, region, name string, down bool) (string, error) {
	path := interconnectPath(project, name)
	what := "interconnect"
	if region != "" {
		path, what = attachmentPath(project, region, name), "interconnect attachment"
	}
	err := s.db.Update(context.Background(), func(tx *store.Tx) error {
		if region == "" {
			return setCircuit(tx, s.tables.interconnects, path, what, down, func(r *InterconnectRecord) (*Lifecycle, *bool) { return &r.Lifecycle, &r.CircuitDown })
		}
		return setCircuit(tx, s.tables.attachments, path, what, down, func(r *AttachmentRecord) (*Lifecycle, *bool) { return &r.Lifecycle, &r.CircuitDown })
	})
	return path, err
}

// setCircuit sets the circuit of the resource of t at path (what names its kind) down or up.
func setCircuit[R any](tx *store.Tx, t *store.Table[R], path, what string, down bool, state func(*R) (*Lifecycle, *bool)) error {
	r, ok := t.Get(tx, path)
	l, circuitDown := state(&r)
	if !ok || l.Pending {
		return fmt.Errorf("%s %s: %w", what, path, store.ErrNotFound)
	}
	if *circuitDown == down {
		return nil
	}
	*circuitDown = down
	return t.Put(tx, path, r)
}
