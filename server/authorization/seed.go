package authorization

import (
	"fmt"

	gen "github.com/understudy-dev/understudy/gen/authorization"
	"github.com/understudy-dev/understudy/internal/store"
)

// SeedAssignment is a role assignment that exists at start and again after every reset.
type SeedAssignment struct {
	Scope            string `yaml:"scope"`
	Name             string `yaml:"name"`
	PrincipalID      string `yaml:"principalId"`
	PrincipalType    string `yaml:"principalType"`
	RoleDefinitionID string `yaml:"roleDefinitionId"`
	Description      string `yaml:"description"`
	Condition        string `yaml:"condition"`
	ConditionVersion string `yaml:"conditionVersion"`
}

// seedCaller is who created the seeded assignments.
var seedCaller = Caller{PrincipalID: "understudy-seed", Name: "understudy-seed", Type: "Application"}

// Seed loads the configured assignments into tx through the same checks and rules as a PUT.
func (s *Server) Seed(tx *store.Tx) error {
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
		Description: optional(a.Description), Condition: optional(a.Condition), ConditionVersion: optional(a.ConditionVersion)}
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
	_, _, err = s.apply(tx, scope, a.Name, want, seedCaller)
	return err
}
