package server

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/internal/store"
	"github.com/understudy-dev/understudy/server/accounts"
	"github.com/understudy-dev/understudy/server/authorization"
	"github.com/understudy-dev/understudy/server/compute"
)

// Seed is the content of a seed file: state and settings loaded at start and restored by
// reset. Each API has its own section; unknown fields are errors. A state export
// (Server.Export) is one too.
type Seed struct {
	Authorization AuthorizationSeed `yaml:"authorization"`
	Accounts      AccountsSeed      `yaml:"accounts"`
	Compute       ComputeSeed       `yaml:"compute"`

	file string
	root ast.Node // the document's top node: where each entry and field is
}

// AuthorizationSeed is the authorization section of a seed file.
type AuthorizationSeed struct {
	// Enforce turns permission checks on (so does --authz-enforce).
	Enforce bool `yaml:"enforce,omitempty"`
	// DefaultPrincipal is the caller of tokens that name no principal.
	DefaultPrincipal string `yaml:"defaultPrincipal,omitempty"`
	// BootstrapOwners hold Owner everywhere.
	BootstrapOwners []string `yaml:"bootstrapOwners,omitempty"`
	// MaxPerSubscription limits assignments under one subscription.
	MaxPerSubscription int `yaml:"maxPerSubscription,omitempty"`
	// Tokens map bearer tokens to principals.
	Tokens map[string]authorization.Principal `yaml:"tokens,omitempty"`
	// RoleDefinitions are custom roles.
	RoleDefinitions []authorization.SeedRole `yaml:"roleDefinitions,omitempty"`
	// RoleAssignments exist at start and after every reset.
	RoleAssignments []authorization.SeedAssignment `yaml:"roleAssignments,omitempty"`
	// StrictPrincipals refuses assignments to principals the directory does not know (so
	// does --authz-strict-principals).
	StrictPrincipals bool `yaml:"strictPrincipals,omitempty"`
	// ManagementGroups say which subscriptions (and groups) sit in which management group.
	ManagementGroups []authorization.ManagementGroup `yaml:"managementGroups,omitempty"`
	// Directory is the principals and group memberships, at start and after every reset.
	Directory []authorization.DirectoryEntry `yaml:"directory,omitempty"`
	// DenyAssignments exist at start and after every reset.
	DenyAssignments []authorization.SeedDenyAssignment `yaml:"denyAssignments,omitempty"`
}

// AccountsSeed is the accounts section of a seed file.
type AccountsSeed struct {
	// AccountConcurrency is the default per-account limit of updating requests in flight.
	AccountConcurrency int `yaml:"account_concurrency,omitempty"`
	// Platforms other than the default one, each with its own keys and settings.
	Platforms []accounts.Platform `yaml:"platforms,omitempty"`
	// Accounts exist at start and after every reset, and so do the links to them and the
	// Idempotency-Keys a state export records.
	Accounts []accounts.SeedAccount `yaml:"accounts,omitempty"`
	Persons  []accounts.SeedPerson  `yaml:"persons,omitempty"`
	// EventDestinations exist at start and after every reset, signing secrets included.
	EventDestinations []accounts.SeedDestination    `yaml:"event_destinations,omitempty"`
	Links             []accounts.SeedLink           `yaml:"account_links,omitempty"`
	IdempotencyKeys   []accounts.SeedIdempotencyKey `yaml:"idempotency_keys,omitempty"`
}

// ComputeSeed is the compute section of a seed file.
type ComputeSeed struct {
	// OperationMode is how operations finish: immediate, manual or a duration.
	OperationMode string `yaml:"operationMode,omitempty"`
	// Locations are interconnect locations added to the built-in catalog.
	Locations []compute.Location `yaml:"interconnectLocations,omitempty"`
	// RemoteLocations are Cross-Cloud Interconnect remote locations added to the built-in
	// catalog.
	RemoteLocations []compute.RemoteLocation `yaml:"interconnectRemoteLocations,omitempty"`
	// Projects hold resources that exist at start and after every reset, by project id.
	Projects map[string]compute.SeedProject `yaml:"projects,omitempty"`
}

// SeedError is a problem in a seed file: where it is and what is wrong.
type SeedError struct {
	File string
	// Line is 1-based; 0 when the problem has no place in the file.
	Line int
	// Field is the path of the member at fault from the top of the file, such as
	// compute.projects.my-project.forwardingRules[0].labels.env ("" for the whole file).
	Field string
	Err   error
}

func (e *SeedError) Error() string {
	var b strings.Builder
	b.WriteString("seed " + e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Err.Error())
	return b.String()
}

func (e *SeedError) Unwrap() error { return e.Err }

//go:embed seed-default.yaml
var defaultSeed []byte

// DefaultSeed is the built-in seed: the defaults of the settings a seed file can change
// (the operation mode, say) and one custom role, the one the vendor's role-assignment
// examples assign. A --seed file is applied after it.
func DefaultSeed() *Seed {
	s, err := ParseSeed("(built-in default)", defaultSeed)
	if err != nil {
		panic(err) // seed_test.go parses it
	}
	return s
}

// LoadSeed reads and parses a seed file. Errors name the file, the line and the field.
func LoadSeed(path string) (*Seed, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	return ParseSeed(path, data)
}

// ParseSeed parses seed YAML (goccy/go-yaml, strictly: unknown fields, values of the wrong
// type and keys given twice are errors); file names it in errors, each with its line and
// field. Whether the entries keep the APIs' rules is checked by Apply.
func ParseSeed(file string, data []byte) (*Seed, error) {
	s := &Seed{file: file}
	// Keys given twice are found below, to name both lines.
	f, err := parser.ParseBytes(data, 0, parser.AllowDuplicateMapKey())
	if err != nil {
		return nil, s.yamlError(err)
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d.Body != nil {
			docs = append(docs, d)
		}
	}
	switch {
	case len(docs) == 0:
		return s, nil // an empty file seeds nothing
	case len(docs) > 1:
		return nil, &SeedError{File: file, Line: docs[1].Body.GetToken().Position.Line, Err: errors.New("a seed file holds one YAML document")}
	}
	s.root = docs[0].Body
	if err := s.duplicateKeys(s.root, nil); err != nil {
		return nil, err
	}
	if err := yaml.NodeToValue(s.root, s, yaml.DisallowUnknownField(), yaml.UseJSONUnmarshaler()); err != nil {
		return nil, s.yamlError(err)
	}
	return s, nil
}

// duplicateKeys reports the first key a mapping under n gives twice.
func (s *Seed) duplicateKeys(n ast.Node, p []string) error {
	n = unwrap(n)
	switch n := n.(type) {
	case *ast.MappingNode:
		first := map[string]int{}
		for _, kv := range n.Values {
			k := kv.Key.GetToken()
			if line, dup := first[k.Value]; dup {
				_, field := s.locate(append(p, k.Value))
				return &SeedError{File: s.file, Line: k.Position.Line, Field: field, Err: fmt.Errorf("given twice (first at line %d)", line)}
			}
			first[k.Value] = k.Position.Line
			if err := s.duplicateKeys(kv.Value, append(p, k.Value)); err != nil {
				return err
			}
		}
	case *ast.MappingValueNode:
		return s.duplicateKeys(n.Value, append(p, n.Key.GetToken().Value))
	case *ast.SequenceNode:
		for i, v := range n.Values {
			if err := s.duplicateKeys(v, append(p, strconv.Itoa(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

// yamlError is an error of the YAML library as a SeedError: its line, the field it is
// about, and what was wanted, from the error's own members.
func (s *Seed) yamlError(err error) error {
	var (
		unknown    *yaml.UnknownFieldError
		typ        *yaml.TypeError
		unexpected *yaml.UnexpectedNodeTypeError
		overflow   *yaml.OverflowError
		syntax     *yaml.SyntaxError
	)
	at := func(tk *token.Token, msg string) error {
		line, field := s.fieldAt(tk)
		return &SeedError{File: s.file, Line: line, Field: field, Err: errors.New(msg)}
	}
	switch {
	case errors.As(err, &unknown):
		line, field := s.fieldAt(unknown.Token)
		msg := "unknown field"
		if known := knownFields(reflect.TypeFor[Seed](), parentOf(field)); len(known) > 0 {
			msg += " (known: " + strings.Join(known, ", ") + ")"
		}
		return &SeedError{File: s.file, Line: line, Field: field, Err: errors.New(msg)}
	case errors.As(err, &typ):
		return at(typ.Token, fmt.Sprintf("want %s, got %s", wanted(typ.DstType), given(typ.Token)))
	case errors.As(err, &unexpected):
		return at(unexpected.Token, fmt.Sprintf("want %s, got %s", nodeKind(unexpected.Expected), nodeKind(unexpected.Actual)))
	case errors.As(err, &overflow):
		return at(overflow.Token, fmt.Sprintf("the number %s does not fit %s", overflow.SrcNum, wanted(overflow.DstType)))
	case errors.As(err, &syntax):
		return &SeedError{File: s.file, Line: syntax.Token.Position.Line, Err: errors.New(syntax.Message)}
	}
	return &SeedError{File: s.file, Err: err}
}

// fieldAt is the line of a token and the path of the member it belongs to.
func (s *Seed) fieldAt(tk *token.Token) (int, string) {
	if tk == nil {
		return 0, ""
	}
	var found []string
	var walk func(n ast.Node, p []string) bool
	walk = func(n ast.Node, p []string) bool {
		n = unwrap(n)
		switch n := n.(type) {
		case *ast.MappingNode:
			for _, kv := range n.Values {
				if walk(kv, p) {
					return true
				}
			}
		case *ast.MappingValueNode:
			q := append(slices.Clip(p), n.Key.GetToken().Value)
			if n.Key.GetToken() == tk {
				found = q
				return true
			}
			return walk(n.Value, q)
		case *ast.SequenceNode:
			for i, v := range n.Values {
				if walk(v, append(slices.Clip(p), strconv.Itoa(i))) {
					return true
				}
			}
		}
		if n != nil && n.GetToken() == tk {
			found = p
			return true
		}
		return false
	}
	walk(s.root, nil)
	_, field := s.locate(found)
	return tk.Position.Line, field
}

// unwrap is the node an anchor or a tag stands for.
func unwrap(n ast.Node) ast.Node {
	for {
		switch m := n.(type) {
		case *ast.AnchorNode:
			n = m.Value
		case *ast.TagNode:
			n = m.Value
		default:
			return n
		}
	}
}

// parentOf is the path of the member that holds field (dotted, with [i] for list items).
func parentOf(field string) []string {
	var p []string
	for _, part := range strings.Split(field, ".") {
		name, rest, _ := strings.Cut(part, "[")
		p = append(p, name)
		for rest != "" {
			var idx string
			idx, rest, _ = strings.Cut(rest, "]")
			p = append(p, idx)
			rest = strings.TrimPrefix(rest, "[")
		}
	}
	if len(p) == 0 {
		return nil
	}
	return p[:len(p)-1]
}

// knownFields lists the members the struct at path p (under t) takes, by their YAML names.
func knownFields(t reflect.Type, p []string) []string {
	for _, seg := range p {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldNamed(t, seg)
			if !ok {
				return nil
			}
			t = f.Type
		case reflect.Map, reflect.Slice:
			t = t.Elem()
		default:
			return nil
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for f := range t.Fields() {
		if name := yamlName(f); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// yamlName is the name a seed file gives a struct field ("" for one it does not read):
// its yaml tag, else its json tag, as the decoder reads them.
func yamlName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	for _, tag := range []string{"yaml", "json"} {
		if v, ok := f.Tag.Lookup(tag); ok {
			name, opts, _ := strings.Cut(v, ",")
			if name == "-" || strings.Contains(opts, "inline") {
				return ""
			}
			if name != "" {
				return name
			}
		}
	}
	return strings.ToLower(f.Name)
}

func fieldNamed(t reflect.Type, name string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		if yamlName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// wanted says what a Go type takes, for "want X, got Y".
func wanted(t reflect.Type) string {
	if t == nil {
		return "another value"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return t.String()
}

// given says what a scalar token holds, for "want X, got Y".
func given(tk *token.Token) string {
	if tk == nil {
		return "another value"
	}
	kind := "the value"
	switch tk.Type {
	case token.StringType, token.SingleQuoteType, token.DoubleQuoteType:
		kind = "the string"
	case token.IntegerType, token.BinaryIntegerType, token.OctetIntegerType, token.HexIntegerType:
		kind = "the integer"
	case token.FloatType, token.InfinityType, token.NanType:
		kind = "the number"
	case token.BoolType:
		kind = "the boolean"
	case token.NullType:
		return "null"
	case token.MappingStartType, token.MappingValueType:
		return "a mapping"
	case token.SequenceStartType, token.SequenceEntryType:
		return "a list"
	}
	return fmt.Sprintf("%s %q", kind, tk.Value)
}

// nodeKind names a kind of YAML node, for "want X, got Y".
func nodeKind(t ast.NodeType) string {
	switch t {
	case ast.MappingType, ast.MappingValueType:
		return "a mapping"
	case ast.SequenceType:
		return "a list"
	case ast.NullType:
		return "null"
	}
	return "a plain value"
}

// Apply adds the seed to c. Lists (bootstrap owners, tokens, role definitions and
// assignments, platforms, accounts, locations, remote locations, projects) are added to (a
// role definition replaces an earlier one of the same id), enforce is on when
// either says so, and the other settings are taken from the seed unless explicit says their
// flag (or its environment variable) was given. Then the seeded state is loaded once into a
// scratch store, as start and reset will load it, so that an entry breaking an API's rule
// is reported with its file, line and field.
func (s *Seed) Apply(c *Config, explicit func(flag string) bool) error {
	if explicit == nil {
		explicit = func(string) bool { return false }
	}
	at := s.offsets(c)

	a, z := s.Authorization, &c.Authorization
	z.Enforce = z.Enforce || a.Enforce
	z.BootstrapOwners = append(z.BootstrapOwners, a.BootstrapOwners...)
	if a.DefaultPrincipal != "" && !explicit("authz-default-principal") {
		z.DefaultPrincipal = a.DefaultPrincipal
	}
	if a.MaxPerSubscription < 0 {
		return s.errorAt(path("authorization", "maxPerSubscription"), errors.New("want a positive limit"))
	}
	if a.MaxPerSubscription > 0 && !explicit("authz-max-per-subscription") {
		z.MaxPerSubscription = a.MaxPerSubscription
	}
	if len(a.Tokens) > 0 && z.Tokens == nil {
		z.Tokens = map[string]authorization.Principal{}
	}
	for k, v := range a.Tokens {
		z.Tokens[k] = v
	}
	z.StrictPrincipals = z.StrictPrincipals || a.StrictPrincipals
	z.ManagementGroups = append(z.ManagementGroups, a.ManagementGroups...)

	ac := &c.Accounts
	ac.Platforms = append(ac.Platforms, s.Accounts.Platforms...)
	if s.Accounts.AccountConcurrency < 0 {
		return s.errorAt(path("accounts", "account_concurrency"), errors.New("want a positive limit"))
	}
	if s.Accounts.AccountConcurrency > 0 && !explicit("accounts-concurrency") {
		ac.AccountConcurrency = s.Accounts.AccountConcurrency
	}

	cc := &c.Compute
	if err := checkCatalog(s, compute.SeedLocations, s.Compute.Locations, compute.Location.Check); err != nil {
		return err
	}
	cc.Locations = append(cc.Locations, s.Compute.Locations...)
	// Their permitted connections are locations of the catalog, this seed's included.
	if err := checkCatalog(s, compute.SeedRemoteLocations, s.Compute.RemoteLocations, func(r compute.RemoteLocation) error { return r.Check(cc.Locations) }); err != nil {
		return err
	}
	cc.RemoteLocations = append(cc.RemoteLocations, s.Compute.RemoteLocations...)
	if m := s.Compute.OperationMode; m != "" {
		mode, err := operations.ParseMode(m)
		if err != nil {
			return s.errorAt(path("compute", "operationMode"), err)
		}
		if !explicit("compute-operation-mode") {
			cc.Operations.Mode = mode
		}
	}
	s.addState(c)
	return s.check(c, at)
}

// checkCatalog checks each entry the seed adds to one of compute's catalogs (collection),
// naming the member at fault.
func checkCatalog[T any](s *Seed, collection string, entries []T, check func(T) error) error {
	for i, e := range entries {
		if err := check(e); err != nil {
			at := path("compute", collection, strconv.Itoa(i))
			var se *compute.SeedError
			if errors.As(err, &se) {
				return s.errorAt(append(at, splitField(se.Field)...), se.Err)
			}
			return s.errorAt(at, err)
		}
	}
	return nil
}

// offsets are where the seed's entries will start in c's lists.
func (s *Seed) offsets(c *Config) offsets {
	roles := c.Authorization.RoleDefinitions
	roles = slices.DeleteFunc(slices.Clone(roles), func(old authorization.SeedRole) bool { return s.replacesRole(old) })
	return offsets{
		roles: len(roles), assignments: len(c.Authorization.Assignments),
		groups: len(c.Authorization.ManagementGroups), directory: len(c.Authorization.Directory), denies: len(c.Authorization.DenyAssignments),
		platforms: len(c.Accounts.Platforms), projects: len(c.Compute.Projects),
		accounts: map[string]int{accounts.SeedAccounts: len(c.Accounts.Accounts), accounts.SeedPersons: len(c.Accounts.Persons), accounts.SeedDestinations: len(c.Accounts.EventDestinations), accounts.SeedLinks: len(c.Accounts.Links),
			accounts.SeedIdempotencyKeys: len(c.Accounts.IdempotencyKeys), accounts.SeedPlatforms: len(c.Accounts.Platforms)},
	}
}

// replacesRole reports whether the seed gives a custom role of old's id.
func (s *Seed) replacesRole(old authorization.SeedRole) bool {
	return slices.ContainsFunc(s.Authorization.RoleDefinitions, func(r authorization.SeedRole) bool { return strings.EqualFold(r.GUID(), old.GUID()) })
}

// addState adds the seed's state (the entries of its lists that are data, not settings) to
// c's. A custom role whose id an earlier seed gave (the built-in seed's example role, say)
// is replaced by this seed's: so a state export, which writes every custom role, loads back
// on top of the built-in seed.
func (s *Seed) addState(c *Config) {
	z := &c.Authorization
	z.RoleDefinitions = append(slices.DeleteFunc(slices.Clone(z.RoleDefinitions), s.replacesRole), s.Authorization.RoleDefinitions...)
	z.Assignments = append(z.Assignments, s.Authorization.RoleAssignments...)
	z.Directory = append(z.Directory, s.Authorization.Directory...)
	z.DenyAssignments = append(z.DenyAssignments, s.Authorization.DenyAssignments...)

	ac := &c.Accounts
	ac.Accounts = append(ac.Accounts, s.Accounts.Accounts...)
	ac.Persons = append(ac.Persons, s.Accounts.Persons...)
	ac.EventDestinations = append(ac.EventDestinations, s.Accounts.EventDestinations...)
	ac.Links = append(ac.Links, s.Accounts.Links...)
	ac.IdempotencyKeys = append(ac.IdempotencyKeys, s.Accounts.IdempotencyKeys...)

	projects := make([]string, 0, len(s.Compute.Projects))
	for p := range s.Compute.Projects {
		projects = append(projects, p)
	}
	slices.Sort(projects)
	for _, p := range projects {
		sp := s.Compute.Projects[p]
		sp.Project = p
		c.Compute.Projects = append(c.Compute.Projects, sp)
	}
}

// ErrRunningSetting is a setting of a seed loaded into a running server that is not the
// server's: the APIs are configured once, at start.
var ErrRunningSetting = errors.New("not the running server's setting")

// replaceState makes next's state (its lists of data) the seed's, and nothing else (the
// built-in seed's example role included: an export holds it when the server does), and
// checks it as Apply does. The seed's settings are not applied: each it gives must be
// running's (ErrRunningSetting otherwise).
func (s *Seed) replaceState(next *Config, running Config) error {
	if err := s.sameSettings(running); err != nil {
		return err
	}
	z, ac := &next.Authorization, &next.Accounts
	z.RoleDefinitions, z.Assignments, z.Directory, z.DenyAssignments = nil, nil, nil, nil
	ac.Accounts, ac.Persons, ac.EventDestinations, ac.Links, ac.IdempotencyKeys = nil, nil, nil, nil, nil
	next.Compute.Projects = nil
	at := s.offsets(next)
	s.addState(next)
	return s.check(next, at)
}

// sameSettings reports the first setting the seed gives that is not running's. A setting
// it leaves out (or gives as false or 0) is the running one.
func (s *Seed) sameSettings(running Config) error {
	def := authorization.DefaultConfig()
	a, r := s.Authorization, running.Authorization
	checks := []settingCheck{
		{a.Enforce, path("authorization", "enforce"), true, r.Enforce, "false"},
		{a.DefaultPrincipal != "", path("authorization", "defaultPrincipal"), a.DefaultPrincipal, cmp.Or(r.DefaultPrincipal, def.DefaultPrincipal), cmp.Or(r.DefaultPrincipal, def.DefaultPrincipal)},
		{len(a.BootstrapOwners) > 0, path("authorization", "bootstrapOwners"), a.BootstrapOwners, r.BootstrapOwners, ""},
		{a.MaxPerSubscription != 0, path("authorization", "maxPerSubscription"), a.MaxPerSubscription, cmp.Or(r.MaxPerSubscription, def.MaxPerSubscription), strconv.Itoa(cmp.Or(r.MaxPerSubscription, def.MaxPerSubscription))},
		{len(a.Tokens) > 0, path("authorization", "tokens"), a.Tokens, r.Tokens, ""},
		{a.StrictPrincipals, path("authorization", "strictPrincipals"), true, r.StrictPrincipals, "false"},
		{len(a.ManagementGroups) > 0, path("authorization", "managementGroups"), a.ManagementGroups, r.ManagementGroups, ""},
		{s.Accounts.AccountConcurrency != 0, path("accounts", "account_concurrency"), s.Accounts.AccountConcurrency, running.Accounts.AccountConcurrency, strconv.Itoa(running.Accounts.AccountConcurrency)},
		{len(s.Accounts.Platforms) > 0, path("accounts", accounts.SeedPlatforms), s.Accounts.Platforms, running.Accounts.Platforms, ""},
		{len(s.Compute.Locations) > 0, path("compute", compute.SeedLocations), s.Compute.Locations, running.Compute.Locations, ""},
		{len(s.Compute.RemoteLocations) > 0, path("compute", compute.SeedRemoteLocations), s.Compute.RemoteLocations, running.Compute.RemoteLocations, ""},
	}
	if m := s.Compute.OperationMode; m != "" {
		mode, err := operations.ParseMode(m)
		if err != nil {
			return s.errorAt(path("compute", "operationMode"), err)
		}
		have := running.Compute.Operations.Mode.String()
		checks = append(checks, settingCheck{true, path("compute", "operationMode"), mode.String(), have, have})
	}
	for _, c := range checks {
		if !c.given || sameYAML(c.want, c.have) {
			continue
		}
		running := ""
		if c.running != "" {
			running = " (" + c.running + ")"
		}
		return s.errorAt(c.field, fmt.Errorf("%w%s: the APIs are configured at start; restart with --seed to change it", ErrRunningSetting, running))
	}
	return nil
}

// settingCheck is a setting a seed gives (given), at field, with the value it gives and the
// running one (also as the error spells it, "" for a list).
type settingCheck struct {
	given      bool
	field      []string
	want, have any
	running    string
}

// sameYAML reports whether a and b write the same YAML, as a state export writes them:
// a list the file gives empty and one it leaves out are the same.
func sameYAML(a, b any) bool {
	x, errA := yamlv3.Marshal(a)
	y, errB := yamlv3.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// offsets are where this seed's entries start in the lists of the configuration it was
// applied to (earlier seeds' entries come first); accounts' by collection.
type offsets struct {
	roles, assignments, platforms, projects int
	groups, directory, denies               int
	accounts                                map[string]int
}

// check loads the state c seeds into a scratch store, with the same code as Server.Reset,
// and reports the first entry that breaks a rule at its line.
func (s *Seed) check(c *Config, at offsets) error {
	db := store.New(store.NewMemory())
	authz, err := authorization.New(c.Authorization, db)
	if err == nil {
		err = db.Replace(context.Background(), func(tx *store.Tx) error { return authz.Seed(tx, c.Authorization) })
	}
	var ase *authorization.SeedError
	if errors.As(err, &ase) {
		first := map[string]int{authorization.SeedRoles: at.roles, authorization.SeedAssignments: at.assignments,
			authorization.SeedManagementGroups: at.groups, authorization.SeedDirectory: at.directory, authorization.SeedDenyAssignments: at.denies}[ase.Collection]
		count := map[string]int{authorization.SeedRoles: len(s.Authorization.RoleDefinitions), authorization.SeedAssignments: len(s.Authorization.RoleAssignments),
			authorization.SeedManagementGroups: len(s.Authorization.ManagementGroups), authorization.SeedDirectory: len(s.Authorization.Directory),
			authorization.SeedDenyAssignments: len(s.Authorization.DenyAssignments)}[ase.Collection]
		return s.entryError(ase.Index-first, count, path("authorization", ase.Collection), ase.Field, ase.Err)
	} else if err != nil {
		return err
	}
	db = store.New(store.NewMemory())
	accts, err := accounts.New(c.Accounts, db)
	if err == nil {
		comp := compute.New(c.Compute, db)
		err = db.Replace(context.Background(), func(tx *store.Tx) error {
			if err := accts.Seed(tx, c.Accounts); err != nil {
				return err
			}
			return comp.Seed(tx, c.Compute)
		})
	}
	var ae *accounts.SeedError
	var ce *compute.SeedError
	switch {
	case errors.As(err, &ae):
		collection := ae.Collection
		if collection == "" {
			collection = accounts.SeedAccounts
		}
		count := map[string]int{accounts.SeedAccounts: len(s.Accounts.Accounts), accounts.SeedPersons: len(s.Accounts.Persons), accounts.SeedDestinations: len(s.Accounts.EventDestinations), accounts.SeedLinks: len(s.Accounts.Links),
			accounts.SeedIdempotencyKeys: len(s.Accounts.IdempotencyKeys), accounts.SeedPlatforms: len(s.Accounts.Platforms)}[collection]
		return s.entryError(ae.Index-at.accounts[collection], count, path("accounts", collection), ae.Field, ae.Err)
	case errors.As(err, &ce):
		if i := ce.ProjectIndex - at.projects; i < 0 || i >= len(s.Compute.Projects) {
			return err
		}
		where := path("compute", "projects", ce.Project)
		if ce.Collection != "" {
			where = append(where, ce.Collection, strconv.Itoa(ce.Index))
		}
		return s.errorAt(append(where, splitField(ce.Field)...), ce.Err)
	}
	return err
}

// entryError reports a problem with entry i of one of the seed's lists (of count entries,
// at prefix); an entry that is not this seed's is reported as is.
func (s *Seed) entryError(i, count int, prefix []string, field string, err error) error {
	if i < 0 || i >= count {
		return &SeedError{File: s.file, Err: err}
	}
	return s.errorAt(append(append(prefix, strconv.Itoa(i)), splitField(field)...), err)
}

// errorAt is err at the member at p, or as near as the file has it.
func (s *Seed) errorAt(p []string, err error) error {
	line, field := s.locate(p)
	return &SeedError{File: s.file, Line: line, Field: field, Err: err}
}

// locate finds the line of the member at p (keys, and indexes in lists) and spells its
// path; a member the file lacks (a missing required field) is at its parent's line.
func (s *Seed) locate(p []string) (int, string) {
	n, line := s.root, 0
	if n != nil {
		line = n.GetToken().Position.Line
	}
	var b strings.Builder
	for _, seg := range p {
		n = unwrap(n)
		var next ast.Node
		isList := false
		switch m := n.(type) {
		case *ast.MappingNode:
			for _, kv := range m.Values {
				if kv.Key.GetToken().Value == seg {
					next, line = kv.Value, kv.Key.GetToken().Position.Line
				}
			}
		case *ast.MappingValueNode:
			if m.Key.GetToken().Value == seg {
				next, line = m.Value, m.Key.GetToken().Position.Line
			}
		case *ast.SequenceNode:
			isList = true
			if j, err := strconv.Atoi(seg); err == nil && j >= 0 && j < len(m.Values) {
				next, line = m.Values[j], m.Values[j].GetToken().Position.Line
			}
		}
		if _, err := strconv.Atoi(seg); err == nil && (n == nil || isList) {
			b.WriteString("[" + seg + "]")
		} else {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg)
		}
		n = next
	}
	return line, b.String()
}

func path(p ...string) []string { return p }

func splitField(f string) []string {
	if f == "" {
		return nil
	}
	return strings.Split(f, ".")
}
