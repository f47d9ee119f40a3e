package authorization

import (
	"fmt"
	"sort"
	"strings"
	"time"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/internal/timefmt"
)

// SeedAssignment is a role assignment that exists at start and again after every reset:
// the PUT's properties, plus the history a state export records. Without that history the
// seed made the assignment at the start or reset (understudy-seed, an Application).
type SeedAssignment struct {
	Scope                              string `yaml:"scope"`
	Name                               string `yaml:"name"`
	PrincipalID                        string `yaml:"principalId"`
	PrincipalType                      string `yaml:"principalType,omitempty"`
	RoleDefinitionID                   string `yaml:"roleDefinitionId"`
	Description                        string `yaml:"description,omitempty"`
	Condition                          string `yaml:"condition,omitempty"`
	ConditionVersion                   string `yaml:"conditionVersion,omitempty"`
	DelegatedManagedIdentityResourceID string `yaml:"delegatedManagedIdentityResourceId,omitempty"`
	// CreatedOn and UpdatedOn are RFC 3339 times; CreatedBy and UpdatedBy principal ids,
	// whose types CreatedByType and UpdatedByType give (User, Application, ...).
	CreatedOn     string `yaml:"createdOn,omitempty"`
	CreatedBy     string `yaml:"createdBy,omitempty"`
	CreatedByType string `yaml:"createdByType,omitempty"`
	UpdatedOn     string `yaml:"updatedOn,omitempty"`
	UpdatedBy     string `yaml:"updatedBy,omitempty"`
	UpdatedByType string `yaml:"updatedByType,omitempty"`
}

// seedCaller is who created the seeded assignments.
var seedCaller = Caller{PrincipalID: "understudy-seed", Name: "understudy-seed", Type: "Application"}

// Seed loads the configured directory and custom roles, then the assignments, into tx
// through the same checks and rules as PUTs.
func (s *Server) Seed(tx *store.Tx) error {
	if err := s.seedDirectory(tx); err != nil {
		return err
	}
	if err := s.seedRoles(tx); err != nil {
		return err
	}
	for i, a := range s.cfg.Assignments {
		if err := s.seedOne(tx, a); err != nil {
			return fmt.Errorf("authorization.roleAssignments[%d] (%s at %s): %w", i, a.Name, a.Scope, err)
		}
	}
	return nil
}

func (s *Server) seedOne(tx *store.Tx, a SeedAssignment) error {
	if _, ok := parseGUID(a.Name); !ok {
		return errInvalidAssignmentName(a.Name)
	}
	scope, serr := parseScope(a.Scope)
	if serr != nil {
		return serr
	}
	p := gen.RoleAssignmentProperties{PrincipalId: a.PrincipalID, RoleDefinitionId: a.RoleDefinitionID,
		Description: optional(a.Description), Condition: optional(a.Condition), ConditionVersion: optional(a.ConditionVersion),
		DelegatedManagedIdentityResourceId: optional(a.DelegatedManagedIdentityResourceID)}
	if a.PrincipalType != "" {
		pt := gen.PrincipalType(a.PrincipalType)
		if !pt.Valid() {
			return fmt.Errorf("principalType %q is not one of User, Group, ServicePrincipal, ForeignGroup, Device", a.PrincipalType)
		}
		p.PrincipalType = &pt
	}
	want, err := s.assignmentFromRequest(&gen.RoleAssignmentCreateParameters{Properties: p}, scope)
	if err != nil {
		return err
	}
	out, created, err := s.apply(tx, scope, a.Name, want, seedCaller)
	if err != nil || !created {
		return err // an assignment given twice is updated, as a second PUT would do
	}
	if !a.recorded() {
		return nil
	}
	for _, t := range []struct {
		field, value string
		to           *time.Time
	}{{"createdOn", a.CreatedOn, &out.CreatedOn}, {"updatedOn", a.UpdatedOn, &out.UpdatedOn}} {
		if t.value == "" {
			continue
		}
		when, err := timefmt.Parse(t.value)
		if err != nil {
			return fmt.Errorf("%s: %w", t.field, err)
		}
		*t.to = when
	}
	for _, f := range []struct{ value, to *string }{
		{&a.CreatedBy, &out.CreatedBy}, {&a.CreatedByType, &out.CreatedByType},
		{&a.UpdatedBy, &out.UpdatedBy}, {&a.UpdatedByType, &out.UpdatedByType},
	} {
		if *f.value != "" {
			*f.to = *f.value
		}
	}
	return s.tables.Assignments.Put(tx, strings.ToLower(a.Name), out)
}

// recorded says whether the entry gives any of the history a state export records.
func (a SeedAssignment) recorded() bool {
	return a.CreatedOn != "" || a.UpdatedOn != "" || a.CreatedBy != "" || a.CreatedByType != "" || a.UpdatedBy != "" || a.UpdatedByType != ""
}

// ExportDirectory is the directory as seed entries, in id order: the seed's principals and
// those the admin API added, with each group's direct members.
func (s *Server) ExportDirectory(tx *store.Tx) []DirectoryEntry {
	return s.exportDirectory(tx)
}

// Export is every role assignment as seed entries, in name order: loaded back, each is the
// assignment it was, history included.
func (s *Server) Export(tx *store.Tx) []SeedAssignment {
	var out []SeedAssignment
	s.tables.Assignments.Each(tx, func(_ string, r RoleAssignment) bool {
		scope := r.Scope
		if scope == "" {
			scope = "/" // the root, as a seed names it
		}
		out = append(out, SeedAssignment{
			Scope: scope, Name: r.Name, PrincipalID: r.PrincipalID, PrincipalType: r.PrincipalType,
			RoleDefinitionID: roleDefinitionsPrefix + r.RoleDefinitionGUID, Description: r.Description,
			Condition: r.Condition, ConditionVersion: r.ConditionVersion, DelegatedManagedIdentityResourceID: r.DelegatedManagedIdentityResourceID,
			CreatedOn: timefmt.Exact(r.CreatedOn), CreatedBy: r.CreatedBy, CreatedByType: r.CreatedByType,
			UpdatedOn: timefmt.Exact(r.UpdatedOn), UpdatedBy: r.UpdatedBy, UpdatedByType: r.UpdatedByType,
		})
		return true
	})
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}
