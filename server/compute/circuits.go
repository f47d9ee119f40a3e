package compute

import (
	"fmt"

	"github.com/understudy-dev/understudy/internal/store/compat"
)

// SetCircuit sets the operational state of an interconnect (region "") or an attachment
// directly, as the admin API's circuit control asks: down, it is inactive in every group's
// operational status without a change to its configuration. It returns the resource's path;
// a resource that is not there (or not yet readable) is store.ErrNotFound.
func (s *Server) SetCircuit(project, region, name string, down bool) (string, error) {
	var path string
	err := s.db.Update(func(tx *store.Tx) error {
		if region == "" {
			path = interconnectPath(project, name)
			ic, ok := s.tables.Interconnects.Get(tx, project+"|"+name)
			if !ok || ic.Pending {
				return fmt.Errorf("interconnect %s: %w", path, store.ErrNotFound)
			}
			if ic.CircuitDown == down {
				return nil
			}
			ic.CircuitDown, ic.Generation = down, ic.Generation+1
			return s.tables.Interconnects.Put(tx, ic.Key(), ic)
		}
		path = attachmentPath(project, region, name)
		a, ok := s.tables.Attachments.Get(tx, AttachmentKey(project, region, name))
		if !ok || a.Pending {
			return fmt.Errorf("interconnect attachment %s: %w", path, store.ErrNotFound)
		}
		if a.CircuitDown == down {
			return nil
		}
		a.CircuitDown, a.Generation = down, a.Generation+1
		return s.tables.Attachments.Put(tx, a.Key(), a)
	})
	return path, err
}
