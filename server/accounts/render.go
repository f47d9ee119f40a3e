package accounts

import (
	"encoding/json"
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
}

// termsOfService is met only by the hosted form: the account itself must accept the terms.
// A link's form accepts them for the link's configurations alone, so the requirement holds
// back the configurations no submitted link (nor the seed) has onboarded yet.
const termsOfService = "identity.attestations.terms_of_service.account"

// requirementsOf lists what the account must still provide before its requested
// capabilities can become active. An account without configurations needs nothing. The
// account's details are shared by every configuration: one missing holds back all of them.
func requirementsOf(a Account) []requirement {
	if len(a.Configurations) == 0 {
		return nil
	}
	all := appliedConfigurations(a)
	var out []requirement
	for _, f := range []struct {
		field string
		have  bool
	}{
		{"contact_email", a.ContactEmail != ""},
		{"display_name", a.DisplayName != ""},
		{"identity.country", a.Country != ""},
		{"identity.entity_type", a.EntityType != ""},
	} {
		if !f.have {
			out = append(out, requirement{Field: f.field, Configurations: all})
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

// heldBack is the set of configurations some requirement holds back.
func heldBack(reqs []requirement) map[string]bool {
	out := map[string]bool{}
	for _, r := range reqs {
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

// renderAccount is the wire form of an account; sections not included are null.
func renderAccount(a Account, include []gen.AccountInclude) gen.V2CoreAccount {
	has := func(i gen.AccountInclude) bool { return slices.Contains(include, i) }
	reqs := requirementsOf(a)
	out := gen.V2CoreAccount{
		Id:                    a.ID,
		Object:                gen.V2CoreAccountObjectV2CoreAccount,
		AppliedConfigurations: []gen.ConfigurationType{},
		Created:               timestamp(a.Created),
		Livemode:              a.Livemode,
		Metadata:              gen.Metadata(a.Metadata),
	}
	if out.Metadata == nil {
		out.Metadata = gen.Metadata{}
	}
	for _, name := range appliedConfigurations(a) {
		out.AppliedConfigurations = append(out.AppliedConfigurations, gen.ConfigurationType(name))
	}
	out.ContactEmail = optionalString(a.ContactEmail)
	out.DisplayName = optionalString(a.DisplayName)
	out.Dashboard = optionalString(a.Dashboard)

	out.Configuration.SetNull()
	if has(gen.AccountIncludeConfigurationCustomer) || has(gen.AccountIncludeConfigurationMerchant) || has(gen.AccountIncludeConfigurationRecipient) {
		var cfg gen.AccountConfiguration
		cfg.Customer.SetNull()
		cfg.Merchant.SetNull()
		cfg.Recipient.SetNull()
		held := heldBack(reqs)
		if caps, ok := a.Configurations["customer"]; ok && has(gen.AccountIncludeConfigurationCustomer) {
			cfg.Customer.Set(gen.CustomerConfiguration{Applied: true, Capabilities: capabilitiesAs[gen.CustomerCapabilities](caps, !held["customer"])})
		}
		if caps, ok := a.Configurations["merchant"]; ok && has(gen.AccountIncludeConfigurationMerchant) {
			cfg.Merchant.Set(gen.MerchantConfiguration{Applied: true, Capabilities: capabilitiesAs[gen.MerchantCapabilities](caps, !held["merchant"])})
		}
		if caps, ok := a.Configurations["recipient"]; ok && has(gen.AccountIncludeConfigurationRecipient) {
			cfg.Recipient.Set(gen.RecipientConfiguration{Applied: true, Capabilities: capabilitiesAs[gen.RecipientCapabilities](caps, !held["recipient"])})
		}
		out.Configuration.Set(cfg)
	}

	out.Identity.SetNull()
	if has(gen.AccountIncludeIdentity) {
		out.Identity.Set(gen.AccountIdentity{Country: optionalString(a.Country), EntityType: optionalString(a.EntityType)})
	}
	out.Defaults.SetNull()
	if has(gen.AccountIncludeDefaults) {
		d := gen.AccountDefaults{Locales: []string{}}
		d.Currency.SetNull()
		out.Defaults.Set(d)
	}
	out.Requirements.SetNull()
	if has(gen.AccountIncludeRequirements) {
		out.Requirements.Set(renderRequirements(a, reqs))
	}
	out.FutureRequirements.SetNull()
	if has(gen.AccountIncludeFutureRequirements) {
		fr := gen.AccountRequirements{Entries: []gen.RequirementEntry{}}
		fr.Summary.SetNull()
		out.FutureRequirements.Set(fr)
	}
	if a.Closed {
		// v2 returns "limited, non-personally-identifiable information" for a closed
		// account: what tracks its history (id, configurations, dates, metadata) stays, its
		// contact details, identity and configuration sections do not, and it has nothing
		// left to provide.
		out.Closed = true
		out.ContactEmail, out.DisplayName = optionalString(""), optionalString("")
		out.Configuration.SetNull()
		out.Identity.SetNull()
		out.Requirements.SetNull()
		out.FutureRequirements.SetNull()
	}
	return out
}

func renderRequirements(a Account, reqs []requirement) gen.AccountRequirements {
	out := gen.AccountRequirements{Entries: []gen.RequirementEntry{}}
	out.Summary.SetNull()
	if len(reqs) == 0 {
		return out
	}
	// The requested capabilities of each configuration, which an entry holding the
	// configuration back restricts.
	capsOf := map[string][]gen.RestrictedCapability{}
	for _, name := range appliedConfigurations(a) {
		paths := make([]string, 0, len(a.Configurations[name]))
		for p, requested := range a.Configurations[name] {
			if requested {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, p := range paths {
			capsOf[name] = append(capsOf[name], gen.RestrictedCapability{
				Capability: p[strings.LastIndex(p, ".")+1:], Configuration: gen.ConfigurationType(name),
				Deadline: gen.RequirementDeadline{Status: gen.RequirementDeadlineStatusCurrentlyDue},
			})
		}
	}
	for _, r := range reqs {
		var restricted []gen.RestrictedCapability
		for _, name := range r.Configurations {
			restricted = append(restricted, capsOf[name]...)
		}
		e := gen.RequirementEntry{
			AwaitingActionFrom: gen.RequirementEntryAwaitingActionFromUser,
			Description:        r.Field,
			Errors:             []gen.RequirementError{},
			MinimumDeadline:    gen.RequirementDeadline{Status: gen.RequirementDeadlineStatusCurrentlyDue},
			RequestedReasons:   []gen.RequirementRequestedReason{{Code: gen.RequirementRequestedReasonCodeRoutineOnboarding}},
		}
		e.Reference.SetNull()
		if restricted == nil {
			e.Impact.RestrictsCapabilities.SetNull()
		} else {
			e.Impact.RestrictsCapabilities.Set(restricted)
		}
		out.Entries = append(out.Entries, e)
	}
	var deadline gen.RequirementsSummaryDeadline
	deadline.Status = gen.RequirementDeadlineStatusCurrentlyDue
	deadline.Time.SetNull()
	out.Summary.Set(gen.RequirementsSummary{MinimumDeadline: deadline})
	return out
}

// capabilitiesAs builds a configuration's generated capabilities type from the requested
// capability paths, through JSON, so that one function serves every configuration's shape.
// A capability that was requested is active once nothing holds its configuration back,
// else restricted until the account provides what is missing.
func capabilitiesAs[T any](caps map[string]bool, active bool) T {
	tree := map[string]any{}
	for path, requested := range caps {
		if !requested {
			continue // withdrawn: absent, like one never requested
		}
		c := gen.AccountCapability{Requested: true, Status: gen.CapabilityStatusActive, StatusDetails: []gen.CapabilityStatusDetail{}}
		if !active {
			c.Status = gen.CapabilityStatusRestricted
			c.StatusDetails = []gen.CapabilityStatusDetail{{Code: gen.CapabilityStatusDetailCodeRequirementsPastDue, Resolution: gen.CapabilityStatusDetailResolutionProvideInfo}}
		}
		node := tree
		parts := strings.Split(path, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := node[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				node[p] = next
			}
			node = next
		}
		node[parts[len(parts)-1]] = c
	}
	var out T
	raw, _ := json.Marshal(tree)
	_ = json.Unmarshal(raw, &out)
	return out
}

func optionalString(s string) nullable.Nullable[string] {
	if s == "" {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(s)
}
