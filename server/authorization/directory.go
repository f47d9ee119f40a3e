package authorization

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/understudy-dev/understudy/internal/store"
)

// The directory is the tenant's principals and group memberships, as the seed file and the
// admin API declare them. ARM asks Entra ID; understudy keeps its own small directory:
//   - a known principal's principalType is the directory's (a PUT that names another is
//     400 UnmatchedPrincipalType, as ARM answers);
//   - assignedTo('{id}') and permission checks follow group membership, transitively;
//   - with StrictPrincipals, a principal the directory does not know is 400
//     PrincipalNotFound. Off by default: most tests make ids up.

// DirectoryEntry is a principal as the seed file and the admin API declare it.
type DirectoryEntry struct {
	ID string `yaml:"id" json:"id"`
	// Type is User, Group, ServicePrincipal, ManagedIdentity, ForeignGroup or Device.
	Type        string `yaml:"type" json:"type"`
	DisplayName string `yaml:"displayName,omitempty" json:"displayName,omitempty"`
	// Members are the ids of the principals directly in a group (groups only).
	Members []string `yaml:"members,omitempty" json:"members,omitempty"`
}

// directoryTypes maps each directory type to the principalType role assignments carry for
// it: a managed identity is a service principal to ARM.
var directoryTypes = map[string]string{
	"User": "User", "Group": "Group", "ServicePrincipal": "ServicePrincipal",
	"ManagedIdentity": "ServicePrincipal", "ForeignGroup": "ForeignGroup", "Device": "Device",
}

// DirectoryTypes lists the types a directory entry may have.
var DirectoryTypes = []string{"User", "Group", "ServicePrincipal", "ManagedIdentity", "ForeignGroup", "Device"}

// ErrInvalidPrincipal is wrapped by every refusal of a directory entry.
var ErrInvalidPrincipal = errors.New("invalid principal")

// ErrPrincipalNotFound is wrapped when a principal to delete is not in the directory.
var ErrPrincipalNotFound = errors.New("principal not found")

// PutPrincipal creates (true) or replaces a principal of the directory, and a group's
// members, which must be in the directory already.
func (s *Server) PutPrincipal(e DirectoryEntry) (DirectoryEntry, bool, error) {
	ctx := context.Background() // the admin API's call, which has no deadline of its own
	var created bool
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		created, err = s.putPrincipal(tx, e)
		if err != nil {
			return err
		}
		return s.setMembers(tx, e)
	})
	if err != nil {
		return DirectoryEntry{}, false, err
	}
	var out DirectoryEntry
	err = s.db.View(ctx, func(tx *store.Tx) error {
		out, _ = s.directoryEntry(tx, strings.ToLower(e.ID))
		return nil
	})
	return out, created, err
}

// DeletePrincipal removes a principal and its memberships, as a group and as a member.
// Assignments to it stay, as ARM keeps the assignments of a deleted principal.
func (s *Server) DeletePrincipal(id string) error {
	key := asciiLower(id)
	return s.db.Update(context.Background(), func(tx *store.Tx) error {
		if _, ok := s.tables.Directory.Get(tx, key); !ok {
			return fmt.Errorf("%w: %s", ErrPrincipalNotFound, id)
		}
		s.dropMemberships(tx, s.tables.ByGroup, key)
		s.dropMemberships(tx, s.tables.ByMember, key)
		s.tables.Directory.Delete(tx, key)
		return nil
	})
}

// Principals is the directory, in id order.
func (s *Server) Principals() ([]DirectoryEntry, error) {
	var out []DirectoryEntry
	err := s.db.View(context.Background(), func(tx *store.Tx) error {
		out = s.exportDirectory(tx)
		return nil
	})
	return out, err
}

// putPrincipal checks e and stores its principal (not its members).
func (s *Server) putPrincipal(tx *store.Tx, e DirectoryEntry) (bool, error) {
	id, ok := parseGUID(e.ID)
	if !ok {
		return false, fmt.Errorf("%w: id %q is not a GUID (a principal's object id)", ErrInvalidPrincipal, e.ID)
	}
	if _, ok := directoryTypes[e.Type]; !ok {
		return false, fmt.Errorf("%w: type %q is not one of %s", ErrInvalidPrincipal, e.Type, strings.Join(DirectoryTypes, ", "))
	}
	if len(e.Members) > 0 && e.Type != "Group" {
		return false, fmt.Errorf("%w: %s is a %s; only a Group has members", ErrInvalidPrincipal, e.ID, e.Type)
	}
	_, existed := s.tables.Directory.Get(tx, id)
	if err := s.tables.Directory.Put(tx, id, DirectoryObject{ID: id, Type: e.Type, DisplayName: e.DisplayName}); err != nil {
		return false, err
	}
	return !existed, nil
}

// setMembers makes e's members the direct members of the group e.
func (s *Server) setMembers(tx *store.Tx, e DirectoryEntry) error {
	group := asciiLower(e.ID)
	s.dropMemberships(tx, s.tables.ByGroup, group)
	for _, m := range e.Members {
		member, ok := parseGUID(m)
		switch {
		case !ok:
			return fmt.Errorf("%w: member %q of %s is not a GUID", ErrInvalidPrincipal, m, e.ID)
		case member == group:
			return fmt.Errorf("%w: group %s cannot be a member of itself", ErrInvalidPrincipal, e.ID)
		}
		if _, known := s.tables.Directory.Get(tx, member); !known {
			return fmt.Errorf("%w: member %s of %s is not in the directory", ErrInvalidPrincipal, m, e.ID)
		}
		if err := s.tables.Memberships.Put(tx, membershipKey(group, member), Membership{Group: group, Member: member}); err != nil {
			return err
		}
	}
	return nil
}

// dropMemberships deletes the memberships whose index key (group or member) is key.
func (s *Server) dropMemberships(tx *store.Tx, by *store.Index[Membership], key string) {
	var keys []string
	by.Scan(tx, key, key+"\x01", nil, func(_ store.Cursor, m Membership) bool {
		keys = append(keys, membershipKey(m.Group, m.Member))
		return true
	})
	for _, k := range keys {
		s.tables.Memberships.Delete(tx, k)
	}
}

// groupsOf returns the groups principal is in, directly or through other groups, sorted.
func (s *Server) groupsOf(tx *store.Tx, principal string) []string {
	seen := map[string]bool{principal: true}
	var out []string
	queue := []string{principal}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		s.tables.ByMember.Scan(tx, p, p+"\x01", nil, func(_ store.Cursor, m Membership) bool {
			if !seen[m.Group] {
				seen[m.Group] = true
				out = append(out, m.Group)
				queue = append(queue, m.Group)
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}

// principalAndGroups is principal followed by every group it is in: whose assignments
// apply to it.
func (s *Server) principalAndGroups(tx *store.Tx, principal string) []string {
	return append([]string{principal}, s.groupsOf(tx, principal)...)
}

// principalType is the principalType an assignment to principal gets: the directory's for
// a principal it knows (refusing another one sent), else the one sent, else User; with
// StrictPrincipals an unknown principal is refused. sent is "" when the request had none.
func (s *Server) principalType(tx *store.Tx, principal, sent string, tenant string) (string, error) {
	obj, known := s.tables.Directory.Get(tx, principal)
	switch {
	case known:
		t := directoryTypes[obj.Type]
		if sent != "" && sent != t {
			return "", errUnmatchedPrincipalType(principal, t, sent)
		}
		return t, nil
	case s.cfg.StrictPrincipals:
		// ARM skips its look-up when principalType is given (to ride out Entra ID's
		// replication delay); understudy's directory has none, so it always looks.
		if tenant == "" {
			tenant = defaultTenant
		}
		return "", errPrincipalNotFound(principal, tenant)
	case sent == "":
		return defaultPrincipalType, nil
	}
	return sent, nil
}

// directoryEntry is the stored principal id with its direct members.
func (s *Server) directoryEntry(tx *store.Tx, id string) (DirectoryEntry, bool) {
	obj, ok := s.tables.Directory.Get(tx, id)
	if !ok {
		return DirectoryEntry{}, false
	}
	e := DirectoryEntry{ID: obj.ID, Type: obj.Type, DisplayName: obj.DisplayName}
	s.tables.ByGroup.Scan(tx, id, id+"\x01", nil, func(_ store.Cursor, m Membership) bool {
		e.Members = append(e.Members, m.Member)
		return true
	})
	return e, true
}

// exportDirectory is the directory as seed entries, in id order, members included.
func (s *Server) exportDirectory(tx *store.Tx) []DirectoryEntry {
	var ids []string
	s.tables.Directory.Each(tx, func(pk string, _ DirectoryObject) bool {
		ids = append(ids, pk)
		return true
	})
	slices.Sort(ids)
	out := make([]DirectoryEntry, 0, len(ids))
	for _, id := range ids {
		e, _ := s.directoryEntry(tx, id)
		out = append(out, e)
	}
	return out
}

// seedDirectory loads a seed's directory: every principal first, so that members may be
// declared after their groups.
func (s *Server) seedDirectory(tx *store.Tx, directory []DirectoryEntry) error {
	for i, e := range directory {
		if created, err := s.putPrincipal(tx, e); err != nil {
			return &SeedError{Collection: SeedDirectory, Index: i, Err: err}
		} else if !created {
			return &SeedError{Collection: SeedDirectory, Index: i, Err: fmt.Errorf("%w: %s is declared twice", ErrInvalidPrincipal, e.ID)}
		}
	}
	for i, e := range directory {
		if err := s.setMembers(tx, e); err != nil {
			return &SeedError{Collection: SeedDirectory, Index: i, Err: err}
		}
	}
	return nil
}
