package server

import (
	"context"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

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
	root *yaml.Node // the document's top node: where each entry and field is
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

// yamlLine finds the line in yaml.v3's syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// ParseSeed parses seed YAML; file names it in errors. Every problem of shape (an unknown
// field, a value of the wrong type, a key given twice) is reported, each with its line and
// field. Whether the entries keep the APIs' rules is checked by Apply.
func ParseSeed(file string, data []byte) (*Seed, error) {
	s := &Seed{file: file}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return s, nil // an empty file seeds nothing
		}
		return nil, syntaxError(file, err)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, syntaxError(file, err)
		}
		return nil, &SeedError{File: file, Line: more.Line, Err: errors.New("a seed file holds one YAML document")}
	}
	if len(doc.Content) == 0 {
		return s, nil
	}
	s.root = doc.Content[0]
	d := &decoder{file: file}
	d.decode(s.root, reflect.ValueOf(s).Elem(), "")
	if len(d.errs) > 0 {
		return nil, errors.Join(d.errs...)
	}
	return s, nil
}

func syntaxError(file string, err error) error {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &SeedError{File: file, Line: line, Err: errors.New(m[2])}
	}
	return &SeedError{File: file, Err: err}
}

// Apply adds the seed to c. Lists (bootstrap owners, tokens, role definitions and
// assignments, platforms, accounts, locations, projects) are added to (a role definition
// replaces an earlier one of the same id), enforce is on when
// either says so, and the other settings are taken from the seed unless explicit says their
// flag (or its environment variable) was given. Then the seeded state is loaded once into a
// scratch store, as start and reset will load it, so that an entry breaking an API's rule
// is reported with its file, line and field.
func (s *Seed) Apply(c *Config, explicit func(flag string) bool) error {
	if explicit == nil {
		explicit = func(string) bool { return false }
	}
	// A custom role whose id an earlier seed gave (the built-in seed's example role, say)
	// is replaced by this seed's: so a state export, which writes every custom role, loads
	// back on top of the built-in seed.
	c.Authorization.RoleDefinitions = slices.DeleteFunc(slices.Clone(c.Authorization.RoleDefinitions), func(old authorization.SeedRole) bool {
		return slices.ContainsFunc(s.Authorization.RoleDefinitions, func(r authorization.SeedRole) bool { return strings.EqualFold(r.GUID(), old.GUID()) })
	})
	at := offsets{
		roles: len(c.Authorization.RoleDefinitions), assignments: len(c.Authorization.Assignments),
		groups: len(c.Authorization.ManagementGroups), directory: len(c.Authorization.Directory),
		platforms: len(c.Accounts.Platforms), projects: len(c.Compute.Projects),
		accounts: map[string]int{accounts.SeedAccounts: len(c.Accounts.Accounts), accounts.SeedPersons: len(c.Accounts.Persons), accounts.SeedDestinations: len(c.Accounts.EventDestinations), accounts.SeedLinks: len(c.Accounts.Links),
			accounts.SeedIdempotencyKeys: len(c.Accounts.IdempotencyKeys)},
	}

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
	z.RoleDefinitions = append(z.RoleDefinitions, a.RoleDefinitions...)
	z.Assignments = append(z.Assignments, a.RoleAssignments...)
	z.StrictPrincipals = z.StrictPrincipals || a.StrictPrincipals
	z.ManagementGroups = append(z.ManagementGroups, a.ManagementGroups...)
	z.Directory = append(z.Directory, a.Directory...)

	ac := &c.Accounts
	ac.Platforms = append(ac.Platforms, s.Accounts.Platforms...)
	if s.Accounts.AccountConcurrency < 0 {
		return s.errorAt(path("accounts", "account_concurrency"), errors.New("want a positive limit"))
	}
	if s.Accounts.AccountConcurrency > 0 && !explicit("accounts-concurrency") {
		ac.AccountConcurrency = s.Accounts.AccountConcurrency
	}
	ac.Accounts = append(ac.Accounts, s.Accounts.Accounts...)
	ac.Persons = append(ac.Persons, s.Accounts.Persons...)
	ac.EventDestinations = append(ac.EventDestinations, s.Accounts.EventDestinations...)
	ac.Links = append(ac.Links, s.Accounts.Links...)
	ac.IdempotencyKeys = append(ac.IdempotencyKeys, s.Accounts.IdempotencyKeys...)

	cc := &c.Compute
	for i, l := range s.Compute.Locations {
		if err := l.Check(); err != nil {
			return s.errorAt(path("compute", "interconnectLocations", strconv.Itoa(i), locationField(err)), err)
		}
	}
	cc.Locations = append(cc.Locations, s.Compute.Locations...)
	if m := s.Compute.OperationMode; m != "" {
		mode, err := operations.ParseMode(m)
		if err != nil {
			return s.errorAt(path("compute", "operationMode"), err)
		}
		if !explicit("compute-operation-mode") {
			cc.Operations.Mode = mode
		}
	}
	projects := make([]string, 0, len(s.Compute.Projects))
	for p := range s.Compute.Projects {
		projects = append(projects, p)
	}
	slices.Sort(projects)
	for _, p := range projects {
		sp := s.Compute.Projects[p]
		sp.Project = p
		cc.Projects = append(cc.Projects, sp)
	}
	return s.check(c, at)
}

// offsets are where this seed's entries start in the lists of the configuration it was
// applied to (earlier seeds' entries come first); accounts' by collection.
type offsets struct {
	roles, assignments, platforms, projects int
	groups, directory                       int
	accounts                                map[string]int
}

// check loads the state c seeds into a scratch store, with the same code as Server.Reset,
// and reports the first entry that breaks a rule at its line.
func (s *Seed) check(c *Config, at offsets) error {
	db := store.New(store.NewMemory())
	authz, err := authorization.New(c.Authorization, db)
	if err == nil {
		err = db.Replace(context.Background(), func(tx *store.Tx) error { return authz.Seed(tx) })
	}
	var ase *authorization.SeedError
	if errors.As(err, &ase) {
		first := map[string]int{authorization.SeedRoles: at.roles, authorization.SeedAssignments: at.assignments,
			authorization.SeedManagementGroups: at.groups, authorization.SeedDirectory: at.directory}[ase.Collection]
		count := map[string]int{authorization.SeedRoles: len(s.Authorization.RoleDefinitions), authorization.SeedAssignments: len(s.Authorization.RoleAssignments),
			authorization.SeedManagementGroups: len(s.Authorization.ManagementGroups), authorization.SeedDirectory: len(s.Authorization.Directory)}[ase.Collection]
		return s.entryError(ase.Index-first, count, path("authorization", ase.Collection), ase.Field, ase.Err)
	} else if err != nil {
		return err
	}
	if i, err := firstFailing(len(c.Accounts.Platforms), func(k int) error {
		cfg := c.Accounts
		cfg.Platforms, cfg.Accounts = cfg.Platforms[:k], nil
		_, err := accounts.New(cfg, store.New(store.NewMemory()))
		return err
	}); err != nil {
		field, err := platformField(err)
		return s.entryError(i-at.platforms, len(s.Accounts.Platforms), path("accounts", "platforms"), field, err)
	}

	db = store.New(store.NewMemory())
	accts, err := accounts.New(c.Accounts, db)
	if err != nil {
		return err
	}
	comp := compute.New(c.Compute, db)
	err = db.Replace(context.Background(), func(tx *store.Tx) error {
		if err := accts.Seed(tx); err != nil {
			return err
		}
		return comp.Seed(tx)
	})
	var ae *accounts.SeedError
	var ce *compute.SeedError
	switch {
	case errors.As(err, &ae):
		collection := ae.Collection
		if collection == "" {
			collection = accounts.SeedAccounts
		}
		count := map[string]int{accounts.SeedAccounts: len(s.Accounts.Accounts), accounts.SeedPersons: len(s.Accounts.Persons), accounts.SeedDestinations: len(s.Accounts.EventDestinations), accounts.SeedLinks: len(s.Accounts.Links),
			accounts.SeedIdempotencyKeys: len(s.Accounts.IdempotencyKeys)}[collection]
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

// firstFailing finds the first of n entries that makes fails fail, given that fails(k)
// checks the first k entries (so once it fails, it fails for every larger k). It returns
// -1 and nil when all n pass, and -1 and the error when even none fail.
func firstFailing(n int, fails func(k int) error) (int, error) {
	err := fails(n)
	if err == nil {
		return -1, nil
	}
	lo, hi := 0, n // fails(hi) fails; the answer is in [lo, hi]
	for lo < hi {
		mid := (lo + hi) / 2
		if e := fails(mid); e != nil {
			hi, err = mid, e
		} else {
			lo = mid + 1
		}
	}
	return hi - 1, err
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
		line = n.Line
	}
	var b strings.Builder
	for _, seg := range p {
		if n != nil && n.Kind == yaml.AliasNode {
			n = n.Alias
		}
		var next *yaml.Node
		if n != nil {
			switch n.Kind {
			case yaml.MappingNode:
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == seg {
						next, line = n.Content[i+1], n.Content[i].Line
					}
				}
			case yaml.SequenceNode:
				if j, err := strconv.Atoi(seg); err == nil && j >= 0 && j < len(n.Content) {
					next, line = n.Content[j], n.Content[j].Line
				}
			}
		}
		if _, err := strconv.Atoi(seg); err == nil && (n == nil || n.Kind == yaml.SequenceNode) {
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

// platformPrefix is how accounts.New starts its errors about a platform.
var platformPrefix = regexp.MustCompile(`^accounts\.platforms\[\d+\]( \([^)]*\))?: `)

// platformField names the member of a seeded platform that an accounts error is about.
func platformField(err error) (string, error) {
	msg := platformPrefix.ReplaceAllString(err.Error(), "")
	field := "id"
	if strings.HasPrefix(msg, "key ") {
		field = "keys"
	}
	return field, errors.New(msg)
}

// locationField names the member of a seeded location that Location.Check's error is about.
func locationField(err error) string {
	msg := err.Error()
	for _, f := range []string{"metro", "availabilityZone", "peeringdbFacilityId", "regions"} {
		if strings.Contains(msg, ": "+f+" ") {
			return f
		}
	}
	return "name"
}

// decoder fills the seed's structs from the YAML tree, strictly: unknown fields, values of
// the wrong type and keys given twice are errors with their line and field. Fields typed
// any (and inline maps of them) take the JSON-like value of their YAML: API bodies.
type decoder struct {
	file string
	errs []error
}

// maxErrors is the most problems reported at once.
const maxErrors = 20

func (d *decoder) fail(n *yaml.Node, field, format string, args ...any) {
	if len(d.errs) < maxErrors {
		d.errs = append(d.errs, &SeedError{File: d.file, Line: n.Line, Field: field, Err: fmt.Errorf(format, args...)})
	}
}

func join(p, key string) string {
	if p == "" {
		return key
	}
	return p + "." + key
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, p string) {
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return // nothing given: the zero value
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), p)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			d.fail(n, p, "want a mapping, got %s", describe(n))
			return
		}
		fields, names, inline := yamlFields(v.Type())
		for k, val := range d.pairs(n, p) {
			key := join(p, k.Value)
			if i, ok := fields[k.Value]; ok {
				d.decode(val, v.Field(i), key)
				continue
			}
			if inline < 0 {
				d.fail(k, key, "unknown field (known: %s)", strings.Join(names, ", "))
				continue
			}
			m := v.Field(inline)
			if m.IsNil() {
				m.Set(reflect.MakeMap(m.Type()))
			}
			elem := reflect.New(m.Type().Elem()).Elem()
			d.decode(val, elem, key)
			m.SetMapIndex(reflect.ValueOf(k.Value), elem)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.fail(n, p, "want a mapping, got %s", describe(n))
			return
		}
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for k, val := range d.pairs(n, p) {
			elem := reflect.New(v.Type().Elem()).Elem()
			d.decode(val, elem, join(p, k.Value))
			v.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), elem)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.fail(n, p, "want a list, got %s", describe(n))
			return
		}
		for i, item := range n.Content {
			elem := reflect.New(v.Type().Elem()).Elem()
			d.decode(item, elem, fmt.Sprintf("%s[%d]", p, i))
			v.Set(reflect.Append(v, elem))
		}
	case reflect.Interface:
		if val, ok := d.value(n, p); ok && val != nil {
			v.Set(reflect.ValueOf(val))
		}
	default:
		d.scalar(n, v, p)
	}
}

// pairs yields a mapping's keys and values, reporting keys that are not scalars or are
// given twice.
func (d *decoder) pairs(n *yaml.Node, p string) func(yield func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				d.fail(k, p, "a key must be a plain value, got %s", describe(k))
				continue
			}
			if first, dup := seen[k.Value]; dup {
				d.fail(k, join(p, k.Value), "given twice (first at line %d)", first)
				continue
			}
			seen[k.Value] = k.Line
			if !yield(k, v) {
				return
			}
		}
	}
}

func (d *decoder) scalar(n *yaml.Node, v reflect.Value, p string) {
	want := map[reflect.Kind]string{reflect.Bool: "true or false", reflect.String: "a string", reflect.Float32: "a number", reflect.Float64: "a number"}[v.Kind()]
	ok := n.Kind == yaml.ScalarNode
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		want, ok = "an integer", ok && n.ShortTag() == "!!int"
	case reflect.Bool:
		ok = ok && n.ShortTag() == "!!bool"
	case reflect.Float32, reflect.Float64:
		ok = ok && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float")
	case reflect.String:
		if ok {
			v.SetString(n.Value)
			return
		}
	default:
		want = v.Type().String()
	}
	if !ok {
		d.fail(n, p, "want %s, got %s", want, describe(n))
		return
	}
	if err := n.Decode(v.Addr().Interface()); err != nil {
		d.fail(n, p, "want %s, got %s (%s)", want, describe(n), strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "))
	}
}

// value is n as JSON would have it: mappings (with string keys), lists, strings, numbers,
// booleans and null. Timestamps stay text.
func (d *decoder) value(n *yaml.Node, p string) (any, bool) {
	switch n.Kind {
	case yaml.AliasNode:
		return d.value(n.Alias, p)
	case yaml.MappingNode:
		m := map[string]any{}
		ok := true
		for k, v := range d.pairs(n, p) {
			val, good := d.value(v, join(p, k.Value))
			m[k.Value], ok = val, ok && good
		}
		return m, ok
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		ok := true
		for i, item := range n.Content {
			val, good := d.value(item, fmt.Sprintf("%s[%d]", p, i))
			l, ok = append(l, val), ok && good
		}
		return l, ok
	}
	switch n.ShortTag() {
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
		d.fail(n, p, "the integer %s is out of range", n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f, true
		}
		d.fail(n, p, "%s is not a number JSON can carry", n.Value)
		return nil, false
	}
	return n.Value, true
}

// yamlFields maps a struct's YAML names to its fields; inline is the field that takes the
// other keys (-1 for none).
func yamlFields(t reflect.Type) (fields map[string]int, names []string, inline int) {
	fields, inline = map[string]int{}, -1
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-":
			continue
		case strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Map:
			inline = i
			continue
		case name == "":
			name = strings.ToLower(f.Name)
		}
		fields[name] = i
		names = append(names, name)
	}
	return fields, names, inline
}

// describe says what a node is, for "want X, got Y".
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	kind := map[string]string{"!!str": "the string", "!!int": "the integer", "!!float": "the number", "!!bool": "the boolean", "!!timestamp": "the timestamp"}[n.ShortTag()]
	if kind == "" {
		kind = n.ShortTag()
	}
	return fmt.Sprintf("%s %q", kind, n.Value)
}
