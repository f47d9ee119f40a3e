package accounts

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	json "github.com/goccy/go-json"
	gen "github.com/understudy-dev/understudy/gen/accounts"
	"github.com/understudy-dev/understudy/internal/store"
)

// An account is kept as its object (Account.Object). Requests change it as a JSON tree: the
// tree of the stored object, or of a new one, takes the request's members (applyAccount),
// then fillAccount computes what follows from them and makes the tree the object. Create,
// update, an account token, the hosted form and the seed all go that way, so a member the
// spec adds to both the request and the object is stored and returned without code of its
// own. What the account's persons decide with it, its requirements and each requested
// capability's status, is derived when an answer shows it (derive).

// accountObject is the object type of an account.
const accountObject = "v2.core.account"

// configurationOrder is the order the configurations appear in: events name them in it.
var configurationOrder = []string{"customer", "merchant", "recipient"}

// newAccountTree is the object tree of an account being made.
func newAccountTree(id string, created time.Time, livemode bool) map[string]any {
	// Made the size of a whole object at once: grown member by member, it was moved to a
	// larger table twice on the way (4% of an account create).
	obj := make(map[string]any, reflect.TypeFor[gen.V2CoreAccount]().NumField())
	obj["id"], obj["created"], obj["livemode"] = id, timestamp(created), livemode
	return obj
}

// applyAccount writes a request's members into the object tree obj of account a: a create
// or update request, a seed entry's body, or an account token's details. Members sent
// replace the stored ones and members sent as null are removed; objects (identity,
// defaults, a configuration's settings) are merged member by member; a configuration sent
// is applied with the capabilities it requests or withdraws, and one sent with applied:
// false is removed from the account, with its onboarding.
func applyAccount(a *Account, obj, req map[string]any) error {
	// Every member but the five below is one the object keeps as it was sent (display_name,
	// contact_email, ...): so is a member the spec adds to the request and the object alike.
	// The callers have taken out the request's own members (include, account_token).
	for key, v := range req {
		switch key {
		case "dashboard", "metadata", "identity", "defaults", "configuration":
		default:
			obj[key] = v
		}
	}
	if v, ok := req["dashboard"]; ok {
		if old, _ := obj["dashboard"].(string); v != old {
			followDashboard(obj, old)
		}
		obj["dashboard"] = v
	}
	if md, ok := req["metadata"].(map[string]any); ok && len(md) > 0 {
		cur, _ := obj["metadata"].(map[string]any)
		if cur == nil {
			cur = map[string]any{}
		}
		for k, v := range md {
			if s, ok := v.(string); ok {
				cur[k] = s
			} else {
				delete(cur, k)
			}
		}
		if len(cur) > maxMetadataKeys {
			return invalidRequest(http.StatusBadRequest, "parameter_invalid", "metadata: an account keeps at most %d keys; this update would leave %d", maxMetadataKeys, len(cur))
		}
		obj["metadata"] = cur
	}
	if id, ok := req["identity"].(map[string]any); ok {
		cur, _ := obj["identity"].(map[string]any)
		merged := mergeTree(cur, id) // the request's tree is left as it is (a retry reads it again)
		if c, ok := id["country"].(string); ok {
			// Either case is taken; ISO 3166-1 writes codes in capitals, and so do we.
			merged["country"] = strings.ToUpper(c)
		}
		obj["identity"] = merged
	}
	if d, ok := req["defaults"].(map[string]any); ok {
		cur, _ := obj["defaults"].(map[string]any)
		obj["defaults"] = mergeTree(cur, d)
	}
	if cfg, ok := req["configuration"].(map[string]any); ok {
		for name, v := range cfg {
			applyConfiguration(a, obj, name, v)
		}
	}
	return nil
}

// applyConfiguration applies one configuration of a request to the account.
func applyConfiguration(a *Account, obj map[string]any, name string, v any) {
	cfgs, _ := obj["configuration"].(map[string]any)
	if cfgs == nil {
		cfgs = map[string]any{}
		obj["configuration"] = cfgs
	}
	c, _ := v.(map[string]any)
	if applied, ok := c["applied"].(bool); v == nil || (ok && !applied) {
		delete(cfgs, name)
		a.OnboardedConfigurations = slices.DeleteFunc(a.OnboardedConfigurations, func(n string) bool { return n == name })
		return
	}
	// The request's tree is left as it is (a retry reads it again): its applied flag and
	// capabilities are not merged, the capabilities are applied below.
	requested := c["capabilities"]
	cur, _ := cfgs[name].(map[string]any)
	cur = mergeTreeExcept(cur, c, "applied", "capabilities")
	caps, _ := cur["capabilities"].(map[string]any)
	if caps == nil {
		caps = map[string]any{}
	}
	for path, on := range requestedCapabilities(requested) {
		if on {
			if dig(caps, path) == nil {
				setPath(caps, path, map[string]any{})
			}
		} else {
			deletePath(caps, path) // withdrawn: absent, like one never requested
		}
	}
	cur["capabilities"] = caps
	cfgs[name] = cur
}

// requestedCapabilities flattens a request's capabilities tree into path -> requested,
// e.g. stripe_balance.stripe_transfers -> true.
func requestedCapabilities(caps any) map[string]bool {
	out := map[string]bool{}
	tree, _ := caps.(map[string]any)
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			sub, ok := v.(map[string]any)
			if !ok {
				continue
			}
			if req, ok := sub["requested"].(bool); ok {
				out[prefix+k] = req
				continue
			}
			walk(prefix+k+".", sub)
		}
	}
	walk("", tree)
	return out
}

// capabilityPaths are the paths of the capabilities an object's configuration holds (the
// requested ones), sorted: the leaves of its capabilities tree, objects without objects in
// them (a status, or nothing yet).
func capabilityPaths(caps map[string]any) []string {
	var out []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			sub, ok := v.(map[string]any)
			if !ok {
				continue
			}
			leaf := true
			for _, x := range sub {
				if _, nested := x.(map[string]any); nested {
					leaf = false
				}
			}
			if leaf {
				out = append(out, prefix+k)
			} else {
				walk(prefix+k+".", sub)
			}
		}
	}
	walk("", caps)
	sort.Strings(out)
	return out
}

// configurationNames are the configurations of an object tree, sorted.
func configurationNames(obj map[string]any) []string {
	cfgs, _ := obj["configuration"].(map[string]any)
	names := make([]string, 0, len(cfgs))
	for name := range cfgs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// collectors are the responsibilities an account's dashboard implies, as the vendor
// describes its defaults: a full dashboard, the vendor; Express, the platform for fees and
// losses; none, the platform.
func collectors(dashboard string) (fees, losses string) {
	switch dashboard {
	case "full":
		return "stripe", "stripe"
	case "express":
		return "application_express", "application"
	}
	return "application", "application"
}

// followDashboard lets the responsibilities that followed the account's dashboard (old)
// follow its next one: those equal to what old implied are taken out, for fillAccount to
// fill in again.
func followDashboard(obj map[string]any, old string) {
	r, _ := dig(obj, "defaults.responsibilities").(map[string]any)
	fees, losses := collectors(old)
	if r["fees_collector"] == fees {
		delete(r, "fees_collector")
	}
	if r["losses_collector"] == losses {
		delete(r, "losses_collector")
	}
}

// fillDefaults makes the defaults complete: what the platform set, else locales [] and the
// responsibilities the dashboard implies (requirements are collected by the vendor).
func fillDefaults(obj map[string]any) {
	d, _ := obj["defaults"].(map[string]any)
	if d == nil {
		d = map[string]any{}
		obj["defaults"] = d
	}
	if d["locales"] == nil {
		d["locales"] = []any{}
	}
	r, _ := d["responsibilities"].(map[string]any)
	if r == nil {
		r = map[string]any{}
		d["responsibilities"] = r
	}
	dashboard, _ := obj["dashboard"].(string)
	fees, losses := collectors(dashboard)
	for _, d := range [...]struct{ key, value string }{{"fees_collector", fees}, {"losses_collector", losses}, {"requirements_collector", "stripe"}} {
		if r[d.key] == nil {
			r[d.key] = d.value
		}
	}
}

// fillAccount computes the members of account a's object (the tree obj) that follow from
// the rest, and makes the tree a's object: the object type and its open state, metadata,
// identity and defaults made complete, the applied configurations, each requested
// capability as an object of its own. The requirements and capability statuses, which the
// account's persons decide too, are not kept (derive). A closed account's object keeps
// only what a closed account shows (withhold).
func fillAccount(a *Account, obj map[string]any) error {
	obj["object"] = accountObject
	if closed, _ := obj["closed"].(bool); closed {
		withhold(obj)
		return setObject(a, obj)
	}
	obj["closed"] = false
	for _, k := range []string{"display_name", "contact_email", "contact_phone", "dashboard"} {
		if s, _ := obj[k].(string); s == "" {
			obj[k] = nil
		}
	}
	for _, k := range []string{"metadata", "identity", "configuration"} {
		if _, ok := obj[k].(map[string]any); !ok {
			obj[k] = map[string]any{}
		}
	}
	fillDefaults(obj)
	names := configurationNames(obj)
	obj["applied_configurations"] = names
	cfgs := obj["configuration"].(map[string]any)
	for _, name := range names {
		c, _ := cfgs[name].(map[string]any)
		if c == nil {
			c = map[string]any{}
			cfgs[name] = c
		}
		c["applied"] = true
		caps, _ := c["capabilities"].(map[string]any)
		if caps == nil {
			caps = map[string]any{}
			c["capabilities"] = caps
		}
		for _, p := range capabilityPaths(caps) {
			setPath(caps, p, map[string]any{}) // requested; its status is derived
		}
	}
	obj["requirements"], obj["future_requirements"] = nil, nil
	return setObject(a, obj)
}

// setObject makes the tree obj account a's object.
func setObject(a *Account, obj map[string]any) error {
	// The members in no particular order: the stored object is only ever decoded again
	// (answers, the export and the console sort their own), and sorting the tree's keys
	// was 3% of an account create.
	raw, err := json.MarshalWithOption(obj, json.UnorderedMap())
	if err != nil {
		return err
	}
	a.Object = raw
	a.Head = accountHead{Livemode: obj["livemode"] == true, Closed: obj["closed"] == true}
	a.Head.ID, _ = obj["id"].(string)
	switch applied := obj["applied_configurations"].(type) {
	case []string:
		a.Head.AppliedConfigurations = applied
	case []any:
		for _, v := range applied {
			if name, ok := v.(string); ok {
				a.Head.AppliedConfigurations = append(a.Head.AppliedConfigurations, name)
			}
		}
	}
	return nil
}

// derive sets in the tree obj of open account a each requested capability's status, which
// its persons decide with it, and returns its requirements section.
func derive(a *Account, obj map[string]any, persons []Person) gen.V2CoreAccountRequirements {
	reqs := requirementsOf(a, obj, persons)
	held := heldBack(reqs)
	cfgs, _ := obj["configuration"].(map[string]any)
	requested := make(map[string][]string, len(cfgs))
	for name, v := range cfgs {
		c, _ := v.(map[string]any)
		caps, _ := c["capabilities"].(map[string]any)
		paths := capabilityPaths(caps)
		status := capabilityStatus(!held[name])
		for _, p := range paths {
			setPath(caps, p, status)
		}
		requested[name] = paths
	}
	return requirementsSection(reqs, requested)
}

// derives says whether an answer that includes these sections shows what an account's
// persons decide: its requirements, or a configuration's capability statuses.
func derives(include []gen.AccountInclude) bool {
	for _, i := range include {
		switch i {
		case gen.AccountIncludeRequirements, gen.AccountIncludeConfigurationCustomer, gen.AccountIncludeConfigurationMerchant,
			gen.AccountIncludeConfigurationRecipient:
			return true
		}
	}
	return false
}

// withhold makes the tree obj a closed account's object: v2 returns "limited,
// non-personally-identifiable information" for a closed account. What tracks its history
// (id, configurations, dates, metadata, defaults) stays; its contact details, identity and
// configuration sections do not, and it has nothing left to provide.
func withhold(obj map[string]any) {
	obj["closed"] = true
	for _, k := range []string{"contact_email", "contact_phone", "display_name", "configuration", "identity", "requirements", "future_requirements"} {
		obj[k] = nil
	}
}

// answerAccount is account a as an answer with include shows it (renderAccount): its
// object, derived with its persons when the answer shows what they decide. obj, when not
// nil, is the account's object as a tree that a write just made and has no more use for:
// derive starts from it (and changes it). An answer that shows nothing derived decodes the
// object, which is quicker than converting the tree, but for the sections it does not show.
func answerAccount(a Account, obj map[string]any, persons []Person, include []gen.AccountInclude) (gen.V2CoreAccount, error) {
	if a.Closed() || !derives(include) {
		o, err := a.shown(slices.Contains(include, gen.AccountIncludeIdentity))
		return renderAccount(o, include), err
	}
	if obj == nil {
		obj = a.tree()
	}
	r := derive(&a, obj, persons)
	// The object is decoded as stored, but for its configuration, which derive has just
	// given its capabilities' statuses: only that is converted from the tree.
	o, err := a.shown(slices.Contains(include, gen.AccountIncludeIdentity))
	if err != nil {
		return o, err
	}
	if cfgs, ok := obj["configuration"].(map[string]any); ok && hasConfiguration(include) {
		cfg, err := objectOf[gen.V2CoreAccountConfiguration](cfgs)
		if err != nil {
			return o, err
		}
		o.Configuration.Set(cfg)
	}
	// The requirements are made as the object's own type, not as a tree to convert.
	o.Requirements.Set(r)
	return renderAccount(o, include), nil
}

// hasConfiguration says whether an answer includes one of the configurations.
func hasConfiguration(include []gen.AccountInclude) bool {
	return slices.Contains(include, gen.AccountIncludeConfigurationCustomer) || slices.Contains(include, gen.AccountIncludeConfigurationMerchant) ||
		slices.Contains(include, gen.AccountIncludeConfigurationRecipient)
}

// answer is account a as an answer with include shows it, with its persons as they are now.
func (s *Server) answer(ctx context.Context, a Account, include []gen.AccountInclude) (gen.V2CoreAccount, error) {
	var persons []Person
	if derives(include) {
		if err := s.db.View(ctx, func(tx *store.Tx) error {
			persons = s.personsOf(tx, a.ID())
			return nil
		}); err != nil {
			return gen.V2CoreAccount{}, err
		}
	}
	return answerAccount(a, nil, persons, include)
}

// getAccount reads an account (and its object's head).
func (s *Server) getAccount(tx *store.Tx, id string) (Account, bool) {
	a, ok := s.tables.Accounts.Get(tx, id)
	if ok {
		a = withHead(a)
	}
	return a, ok
}

// renderAccount is the account's object as an answer shows it: the sections not included
// are null (defaults is always there).
func renderAccount(out gen.V2CoreAccount, include []gen.AccountInclude) gen.V2CoreAccount {
	if out.Closed {
		return out
	}
	has := func(i gen.AccountInclude) bool { return slices.Contains(include, i) }
	if cfg, err := out.Configuration.Get(); err == nil {
		if !has(gen.AccountIncludeConfigurationCustomer) {
			cfg.Customer = nil
		}
		if !has(gen.AccountIncludeConfigurationMerchant) {
			cfg.Merchant = nil
		}
		if !has(gen.AccountIncludeConfigurationRecipient) {
			cfg.Recipient = nil
		}
		out.Configuration.Set(cfg)
	}
	if !has(gen.AccountIncludeConfigurationCustomer) && !has(gen.AccountIncludeConfigurationMerchant) && !has(gen.AccountIncludeConfigurationRecipient) {
		setNull(&out.Configuration)
	}
	if !has(gen.AccountIncludeIdentity) {
		setNull(&out.Identity)
	}
	if !has(gen.AccountIncludeRequirements) {
		setNull(&out.Requirements)
	}
	if has(gen.AccountIncludeFutureRequirements) {
		// Nothing here is due under rules not yet in force: the section is there, empty,
		// whether or not the answer derives the rest.
		out.FutureRequirements.Set(gen.V2CoreAccountFutureRequirements{Entries: []gen.V2CoreAccountRequirementsEntry{}})
	} else {
		setNull(&out.FutureRequirements)
	}
	return out
}
