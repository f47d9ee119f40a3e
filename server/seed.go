package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/compute"
)

// Seed is the content of a --seed file: state and settings loaded at start and restored by
// reset. Each API has its own section; unknown fields are errors.
type Seed struct {
	Authorization AuthorizationSeed `yaml:"authorization"`
	Accounts      AccountsSeed      `yaml:"accounts"`
	Compute       ComputeSeed       `yaml:"compute"`
}

// ComputeSeed is the compute section of a seed file.
type ComputeSeed struct {
	// Locations are interconnect locations added to the built-in catalog.
	Locations []compute.Location `yaml:"interconnectLocations"`
}

// AccountsSeed is the accounts section of a seed file.
type AccountsSeed struct {
	// Platforms other than the default one, each with its own keys and settings.
	Platforms []accounts.Platform `yaml:"platforms"`
	// AccountConcurrency is the default per-account limit of updating requests in flight.
	AccountConcurrency int `yaml:"account_concurrency"`
}

// AuthorizationSeed is the authorization section of a seed file.
type AuthorizationSeed struct {
	// Enforce turns permission checks on (so does --authz-enforce).
	Enforce bool `yaml:"enforce"`
	// DefaultPrincipal is the caller of tokens that name no principal.
	DefaultPrincipal string `yaml:"defaultPrincipal"`
	// BootstrapOwners hold Owner everywhere.
	BootstrapOwners []string `yaml:"bootstrapOwners"`
	// MaxPerSubscription limits assignments under one subscription.
	MaxPerSubscription int `yaml:"maxPerSubscription"`
	// Tokens map bearer tokens to principals.
	Tokens map[string]authorization.Principal `yaml:"tokens"`
	// RoleDefinitions are custom roles.
	RoleDefinitions []authorization.RoleDefinition `yaml:"roleDefinitions"`
	// RoleAssignments exist at start and after every reset.
	RoleAssignments []authorization.SeedAssignment `yaml:"roleAssignments"`
}

// LoadSeed reads and parses a seed file. Errors name the file and, for YAML problems, the
// line.
func LoadSeed(path string) (*Seed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	s, err := ParseSeed(data)
	if err != nil {
		return nil, fmt.Errorf("seed %s: %w", path, err)
	}
	return s, nil
}

// ParseSeed parses seed YAML.
func ParseSeed(data []byte) (*Seed, error) {
	var s Seed
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return &s, nil
}

// ApplyAuthorization merges the authorization section into c: lists are added to, enforce
// is turned on when either says so, and scalars are taken from the seed when keepFlag says
// the flag was not given explicitly.
func (s *Seed) ApplyAuthorization(c *authorization.Config, keepFlag func(name string) bool) {
	a := s.Authorization
	c.Enforce = c.Enforce || a.Enforce
	c.BootstrapOwners = append(c.BootstrapOwners, a.BootstrapOwners...)
	if a.DefaultPrincipal != "" && !keepFlag("authz-default-principal") {
		c.DefaultPrincipal = a.DefaultPrincipal
	}
	if a.MaxPerSubscription > 0 && !keepFlag("authz-max-per-subscription") {
		c.MaxPerSubscription = a.MaxPerSubscription
	}
	if len(a.Tokens) > 0 {
		if c.Tokens == nil {
			c.Tokens = map[string]authorization.Principal{}
		}
		for k, v := range a.Tokens {
			c.Tokens[k] = v
		}
	}
	c.RoleDefinitions = append(c.RoleDefinitions, a.RoleDefinitions...)
	c.Assignments = append(c.Assignments, a.RoleAssignments...)
}

// ApplyAccounts merges the accounts section into c: platforms are added, and the default
// concurrency is taken from the seed when keepFlag says the flag was not given explicitly.
func (s *Seed) ApplyAccounts(c *accounts.Config, keepFlag func(name string) bool) {
	c.Platforms = append(c.Platforms, s.Accounts.Platforms...)
	if s.Accounts.AccountConcurrency > 0 && !keepFlag("accounts-concurrency") {
		c.AccountConcurrency = s.Accounts.AccountConcurrency
	}
}

// ApplyCompute merges the compute section into c, checking each location.
func (s *Seed) ApplyCompute(c *compute.Config) error {
	for i, l := range s.Compute.Locations {
		if err := l.Check(); err != nil {
			return fmt.Errorf("compute.interconnectLocations[%d]: %w", i, err)
		}
	}
	c.Locations = append(c.Locations, s.Compute.Locations...)
	return nil
}
