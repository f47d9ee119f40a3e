package accounts

import (
	gen "github.com/understudy-dev/understudy/gen/accounts"
)

// requirement is a piece of information an account must still provide.
type requirement struct {
	// Field is the v2 field path, e.g. identity.country; it is the entry's description.
	Field string
	// Configurations are the applied configurations it holds back (sorted): their requested
	// capabilities are restricted until it is met.
	Configurations []string
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

// requirementsOf lists what the account (a, whose object is the tree obj) must still
// provide before its requested capabilities can become active. An account without
// configurations needs nothing. The account's details are shared by every configuration:
// one missing holds back all of them. An individual gives their name and date of birth;
// any other entity names a representative among its persons, with their name, and
// eventually its owners, directors and executives (persons with the relationship, or an
// attestation that all were provided).
func requirementsOf(a *Account, obj map[string]any, persons []Person) []requirement {
	all := configurationNames(obj)
	if len(all) == 0 {
		return nil
	}
	entityType := digString(obj, "identity.entity_type")
	fields := []struct {
		field string
		have  bool
	}{
		{"contact_email", digString(obj, "contact_email") != ""},
		{"display_name", digString(obj, "display_name") != ""},
		{"identity.country", digString(obj, "identity.country") != ""},
		{"identity.entity_type", entityType != ""},
	}
	switch {
	case entityType == "" || a.Onboarded:
		// A seeded account marked onboarded (every configuration) went through onboarding
		// before the seed was written: who is behind it was given then, and a seed file
		// written before these requirements existed still loads.
	case entityType == "individual":
		fields = append(fields, []struct {
			field string
			have  bool
		}{
			{reqGivenName, digString(obj, reqGivenName) != ""},
			{reqSurname, digString(obj, reqSurname) != ""},
			{reqDateOfBirth, dig(obj, reqDateOfBirth) != nil},
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
	if entityType != "" && entityType != "individual" && !a.Onboarded {
		// An organization says who owns, directs and runs it: persons with the relationship,
		// or an attestation that they were all provided (none there may be).
		for _, rel := range []string{"owners", "directors", "executives"} {
			if !personsProvided(obj, persons, rel) {
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
func personsProvided(obj map[string]any, persons []Person, rel string) bool {
	if provided, _ := dig(obj, "identity.attestations.persons_provided."+rel).(bool); provided {
		return true
	}
	for _, p := range persons {
		r := p.Object.Relationship
		if r == nil {
			continue
		}
		has := map[string]*bool{"owners": r.Owner, "directors": r.Director, "executives": r.Executive}[rel]
		if has != nil && *has {
			return true
		}
	}
	return false
}

// hasRepresentative says whether a person is the account's representative, with a name.
func hasRepresentative(persons []Person) bool {
	for _, p := range persons {
		o := p.Object
		if o.Relationship != nil && deref(o.Relationship.Representative) && deref(o.GivenName) != "" && deref(o.Surname) != "" {
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

// requirementsSection is the requirements section of an account, as the vendor shapes
// it; capabilities are the requested capabilities of each configuration (capabilityPaths),
// which an entry holding the configuration back restricts.
func requirementsSection(reqs []requirement, capabilities map[string][]string) gen.V2CoreAccountRequirements {
	out := gen.V2CoreAccountRequirements{Entries: make([]gen.V2CoreAccountRequirementsEntry, 0, len(reqs))}
	if len(reqs) == 0 {
		return out
	}
	type (
		deadline   = gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityDeadline
		restricted = gen.V2CoreAccountRequirementsEntryImpactRestrictsCapability
	)
	dueStatus := gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityDeadlineStatusCurrentlyDue
	eventualStatus := gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityDeadlineStatusEventuallyDue
	due, eventually := &deadline{Status: &dueStatus}, &deadline{Status: &eventualStatus}
	user := gen.V2CoreAccountRequirementsEntryAwaitingActionFromUser
	routine := gen.V2CoreAccountRequirementsEntryRequestedReasonCodeRoutineOnboarding
	reasons := []gen.V2CoreAccountRequirementsEntryRequestedReason{{Code: &routine}}
	summary := gen.V2CoreAccountRequirementsSummaryMinimumDeadlineStatusEventuallyDue
	for _, r := range reqs {
		var restricts []restricted
		minimum := eventually
		if !r.Eventual {
			for _, name := range r.Configurations {
				config := gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityConfiguration(name)
				for _, p := range capabilities[name] {
					capability := gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityCapability(p)
					restricts = append(restricts, restricted{Capability: &capability, Configuration: &config, Deadline: due})
				}
			}
			minimum, summary = due, gen.V2CoreAccountRequirementsSummaryMinimumDeadlineStatusCurrentlyDue
		}
		out.Entries = append(out.Entries, gen.V2CoreAccountRequirementsEntry{
			AwaitingActionFrom: &user, Description: &r.Field, Errors: []gen.V2CoreAccountRequirementsEntryError{},
			Impact:          &gen.V2CoreAccountRequirementsEntryImpact{RestrictsCapabilities: restricts},
			MinimumDeadline: minimum, RequestedReasons: reasons,
		})
	}
	out.Summary = &gen.V2CoreAccountRequirementsSummary{MinimumDeadline: &gen.V2CoreAccountRequirementsSummaryMinimumDeadline{Status: &summary}}
	return out
}

// capabilityStatus is a requested capability's status: active once nothing holds its
// configuration back, else restricted until the account provides what is missing.
func capabilityStatus(active bool) gen.AccountCapability {
	if active {
		s := gen.AccountCapabilityStatusActive
		return gen.AccountCapability{Status: &s, StatusDetails: []gen.AccountCapabilityStatusDetail{}}
	}
	s := gen.AccountCapabilityStatusRestricted
	code, resolution := gen.AccountCapabilityStatusDetailCodeRequirementsPastDue, gen.AccountCapabilityStatusDetailResolutionProvideInfo
	return gen.AccountCapability{Status: &s, StatusDetails: []gen.AccountCapabilityStatusDetail{{Code: &code, Resolution: &resolution}}}
}
