package accounts

import (
	"slices"
	"sort"
	"strings"

	"github.com/oapi-codegen/nullable"

	gen "github.com/understudy-dev/understudy/gen/accounts"
)

// requirement is a piece of information an account must still provide.
type requirement struct {
	// Field is the v2 field path, e.g. identity.country; it is the entry's description.
	Field string
	// Configurations are the applied configurations it holds back (sorted): their requested
	// capabilities are restricted until it is met.
	Configurations []string
	// Person is the person the requirement is about ("" for the account itself).
	Person string
	// Eventual says the requirement is eventually_due: it restricts nothing yet.
	Eventual bool
}

// termsOfService is met only by the hosted form: the account itself must accept the terms.
// A link's form accepts them for the link's configurations alone, so the requirement holds
// back the configurations no submitted link (nor the seed) has onboarded yet.
const termsOfService = "identity.attestations.terms_of_service.account"

// Requirements about who is behind the account.
const (
	reqGivenName      = "identity.individual.given_name"
	reqSurname        = "identity.individual.surname"
	reqDateOfBirth    = "identity.individual.date_of_birth"
	reqRepresentative = "relationship.representative"
)

// requirementsOf lists what the account must still provide before its requested
// capabilities can become active. An account without configurations needs nothing. The
// account's details are shared by every configuration: one missing holds back all of them.
// An individual gives their name and date of birth; any other entity names a
// representative among its persons, with their name, and eventually its owners, directors
// and executives (persons with the relationship, or an attestation that all were provided).
func requirementsOf(a Account, persons []Person) []requirement {
	if len(a.Configurations) == 0 {
		return nil
	}
	all := appliedConfigurations(a)
	fields := []struct {
		field string
		have  bool
	}{
		{"contact_email", a.ContactEmail != ""},
		{"display_name", a.DisplayName != ""},
		{"identity.country", a.Country != ""},
		{"identity.entity_type", a.EntityType != ""},
	}
	switch {
	case a.EntityType == "" || a.Onboarded:
		// A seeded account marked onboarded (every configuration) went through onboarding
		// before the seed was written: who is behind it was given then, and a seed file
		// written before these requirements existed still loads.
	case a.EntityType == "individual":
		fields = append(fields, []struct {
			field string
			have  bool
		}{
			{reqGivenName, digString(a.Details, reqGivenName) != ""},
			{reqSurname, digString(a.Details, reqSurname) != ""},
			{reqDateOfBirth, dig(a.Details, reqDateOfBirth) != nil},
		}...)
	default:
		fields = append(fields, struct {
			field string
			have  bool
		}{reqRepresentative, hasRepresentative(persons)})
	}
	var out []requirement
	for _, f := range fields {
		if !f.have {
			out = append(out, requirement{Field: f.field, Configurations: all})
		}
	}
	if a.EntityType != "" && a.EntityType != "individual" && !a.Onboarded {
		// An organization says who owns, directs and runs it: persons with the relationship,
		// or an attestation that they were all provided (none there may be).
		for _, rel := range []string{"owners", "directors", "executives"} {
			if !personsProvided(a, persons, rel) {
				out = append(out, requirement{Field: "identity.attestations.persons_provided." + rel, Eventual: true})
			}
		}
	}
	var terms []string
	for _, name := range all {
		if !a.OnboardedFor(name) {
			terms = append(terms, name)
		}
	}
	if len(terms) > 0 {
		out = append(out, requirement{Field: termsOfService, Configurations: terms})
	}
	return out
}

// personsProvided says whether the account's persons of a relationship (owners,
// directors, executives) were provided: one of its persons has the relationship, or the
// account attests they were all provided.
func personsProvided(a Account, persons []Person, rel string) bool {
	if provided, _ := dig(a.Details, "identity.attestations.persons_provided."+rel).(bool); provided {
		return true
	}
	for _, p := range persons {
		if has, _ := dig(p.Details, "relationship."+strings.TrimSuffix(rel, "s")).(bool); has {
			return true
		}
	}
	return false
}

// hasRepresentative says whether a person is the account's representative, with a name.
func hasRepresentative(persons []Person) bool {
	for _, p := range persons {
		if rep, _ := dig(p.Details, "relationship.representative").(bool); rep &&
			digString(p.Details, "given_name") != "" && digString(p.Details, "surname") != "" {
			return true
		}
	}
	return false
}

// heldBack is the set of configurations some requirement holds back.
func heldBack(reqs []requirement) map[string]bool {
	out := map[string]bool{}
	for _, r := range reqs {
		if r.Eventual {
			continue
		}
		for _, name := range r.Configurations {
			out[name] = true
		}
	}
	return out
}

func appliedConfigurations(a Account) []string {
	names := make([]string, 0, len(a.Configurations))
	for name := range a.Configurations {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// renderAccount is the wire form of an account; sections not included are null. Persons
// are the account's, which meet some of its requirements.
func renderAccount(a Account, persons []Person, include []gen.AccountInclude) gen.V2CoreAccount {
	has := func(i gen.AccountInclude) bool { return slices.Contains(include, i) }
	reqs := requirementsOf(a, persons)
	out := gen.V2CoreAccount{
		Id:                    a.ID,
		Object:                gen.V2CoreAccountObjectV2CoreAccount,
		AppliedConfigurations: []gen.ConfigurationType{},
		Created:               timestamp(a.Created),
		Livemode:              a.Livemode,
		Metadata:              gen.Metadata(a.Metadata),
		Defaults:              renderDefaults(a),
	}
	if out.Metadata == nil {
		out.Metadata = gen.Metadata{}
	}
	for _, name := range appliedConfigurations(a) {
		out.AppliedConfigurations = append(out.AppliedConfigurations, gen.ConfigurationType(name))
	}
	out.ContactEmail = optionalString(a.ContactEmail)
	out.ContactPhone = optionalString(a.ContactPhone)
	out.DisplayName = optionalString(a.DisplayName)
	out.Dashboard = optionalString(a.Dashboard)

	out.Configuration.SetNull()
	cfg := map[string]any{}
	held := heldBack(reqs)
	for _, name := range []string{"customer", "merchant", "recipient"} {
		caps, applied := a.Configurations[name]
		if !has(gen.AccountInclude("configuration."+name)) || !applied {
			continue
		}
		c, _ := dig(a.Details, "configuration."+name).(map[string]any)
		c = cloneTree(c)
		if c == nil {
			c = map[string]any{}
		}
		c["applied"] = true
		c["capabilities"] = capabilitiesTree(caps, !held[name])
		cfg[name] = c
	}
	if has(gen.AccountIncludeConfigurationCustomer) || has(gen.AccountIncludeConfigurationMerchant) || has(gen.AccountIncludeConfigurationRecipient) {
		out.Configuration.Set(fromTree[gen.V2CoreAccountConfiguration](cfg))
	}

	out.Identity.SetNull()
	if has(gen.AccountIncludeIdentity) {
		id, _ := dig(a.Details, "identity").(map[string]any)
		id = cloneTree(id)
		if id == nil {
			id = map[string]any{}
		}
		if a.Country != "" {
			id["country"] = a.Country
		}
		if a.EntityType != "" {
			id["entity_type"] = a.EntityType
		}
		out.Identity.Set(fromTree[gen.V2CoreAccountIdentity](id))
	}
	out.Requirements.SetNull()
	if has(gen.AccountIncludeRequirements) {
		out.Requirements.Set(fromTree[gen.V2CoreAccountRequirements](requirementsTree(a, reqs)))
	}
	out.FutureRequirements.SetNull()
	if has(gen.AccountIncludeFutureRequirements) {
		out.FutureRequirements.Set(fromTree[gen.V2CoreAccountFutureRequirements](map[string]any{"entries": []any{}}))
	}
	if a.Closed {
		// v2 returns "limited, non-personally-identifiable information" for a closed
		// account: what tracks its history (id, configurations, dates, metadata) stays, its
		// contact details, identity and configuration sections do not, and it has nothing
		// left to provide.
		out.Closed = true
		out.ContactEmail, out.ContactPhone, out.DisplayName = optionalString(""), optionalString(""), optionalString("")
		out.Configuration.SetNull()
		out.Identity.SetNull()
		out.Requirements.SetNull()
		out.FutureRequirements.SetNull()
	}
	return out
}

// renderDefaults is the account's defaults: always present, with who is responsible for
// fees, losses and requirements. What the platform set wins; otherwise the
// responsibilities follow the dashboard, as the vendor describes its defaults (a full
// dashboard: the vendor; Express: the platform for fees and losses; none: the platform).
func renderDefaults(a Account) gen.V2CoreAccountDefaults {
	d, _ := dig(a.Details, "defaults").(map[string]any)
	d = cloneTree(d)
	if d == nil {
		d = map[string]any{}
	}
	if _, ok := d["locales"]; !ok {
		d["locales"] = []any{}
	}
	fees, losses := "application", "application"
	switch a.Dashboard {
	case "full":
		fees, losses = "stripe", "stripe"
	case "express":
		fees = "application_express"
	}
	r, _ := d["responsibilities"].(map[string]any)
	r = cloneTree(r)
	if r == nil {
		r = map[string]any{}
	}
	for k, v := range map[string]string{"fees_collector": fees, "losses_collector": losses, "requirements_collector": "stripe"} {
		if _, ok := r[k]; !ok {
			r[k] = v
		}
	}
	d["responsibilities"] = r
	return fromTree[gen.V2CoreAccountDefaults](d)
}

// requirementsTree is the requirements section of an account, as the vendor shapes it.
func requirementsTree(a Account, reqs []requirement) map[string]any {
	out := map[string]any{"entries": []any{}}
	if len(reqs) == 0 {
		return out
	}
	due := map[string]any{"status": "currently_due"}
	// The requested capabilities of each configuration, which an entry holding the
	// configuration back restricts, named by their full path (stripe_balance.stripe_transfers).
	capsOf := map[string][]any{}
	for _, name := range appliedConfigurations(a) {
		paths := make([]string, 0, len(a.Configurations[name]))
		for p, requested := range a.Configurations[name] {
			if requested {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			capsOf[name] = append(capsOf[name], map[string]any{"capability": p, "configuration": name, "deadline": due})
		}
	}
	var entries []any
	summary := "eventually_due"
	for _, r := range reqs {
		restricted := []any{}
		deadline := map[string]any{"status": "eventually_due"}
		if !r.Eventual {
			for _, name := range r.Configurations {
				restricted = append(restricted, capsOf[name]...)
			}
			deadline, summary = due, "currently_due"
		}
		e := map[string]any{
			"awaiting_action_from": "user",
			"description":          r.Field,
			"errors":               []any{},
			"impact":               map[string]any{"restricts_capabilities": restricted},
			"minimum_deadline":     deadline,
			"requested_reasons":    []any{map[string]any{"code": "routine_onboarding"}},
		}
		if r.Person != "" {
			e["reference"] = map[string]any{"type": "person", "resource": r.Person}
		}
		entries = append(entries, e)
	}
	out["entries"] = entries
	out["summary"] = map[string]any{"minimum_deadline": map[string]any{"status": summary}}
	return out
}

// capabilitiesTree is a configuration's capabilities as the vendor shapes them, from the
// requested capability paths. A capability that was requested is active once nothing holds
// its configuration back, else restricted until the account provides what is missing.
func capabilitiesTree(caps map[string]bool, active bool) map[string]any {
	tree := map[string]any{}
	for path, requested := range caps {
		if !requested {
			continue // withdrawn: absent, like one never requested
		}
		c := map[string]any{"requested": true, "status": "active", "status_details": []any{}}
		if !active {
			c["status"] = "restricted"
			c["status_details"] = []any{map[string]any{"code": "requirements_past_due", "resolution": "provide_info"}}
		}
		setPath(tree, path, c)
	}
	return tree
}

func optionalString(s string) nullable.Nullable[string] {
	if s == "" {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(s)
}
