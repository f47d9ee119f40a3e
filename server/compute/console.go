package compute

import (
	"context"
	"slices"

	"github.com/understudy-dev/understudy/internal/store"
)

// ConsoleProjects are the projects that hold resources or operations, in name order, for
// the console (server/console), which reads each through the API's own list operations.
// Operations that are due finish first, as a read would finish them.
func (s *Server) ConsoleProjects(ctx context.Context) ([]string, error) {
	if err := s.ops.Advance(ctx); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	add := func(path string) bool {
		seen[projectOf(path)] = true
		return true
	}
	err := s.db.View(ctx, func(tx *store.Tx) error {
		s.tables.interconnects.Each(tx, func(path string, _ InterconnectRecord) bool { return add(path) })
		s.tables.attachments.Each(tx, func(path string, _ AttachmentRecord) bool { return add(path) })
		s.tables.rules.Each(tx, func(path string, _ RuleRecord) bool { return add(path) })
		s.tables.groups.Each(tx, func(path string, _ GroupRecord) bool { return add(path) })
		s.tables.icGroups.Each(tx, func(path string, _ InterconnectGroupRecord) bool { return add(path) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	ops, err := s.ops.List(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, op := range ops {
		seen[projectOf(deref(op.Op.SelfLink))] = true
	}
	delete(seen, "")
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}
