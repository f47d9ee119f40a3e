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
	type field struct {
		field string
		have  bool
	}
	// At most seven fields: kept on the stack.
	fields := append(make([]field, 0, 7),
		field{"contact_email", digString(obj, "contact_email") != ""},
		field{"display_name", digString(obj, "display_name") != ""},
		field{"identity.country", digString(obj, "identity.country") != ""},
		field{"identity.entity_type", entityType != ""},
	)
	switch {
	case entityType == "" || a.Onboarded:
		// A seeded account marked onboarded (every configuration) went through onboarding
		// before the seed was written: who is behind it was given then, and a seed file
		// written before these requirements existed still loads.
	case entityType == "individual":
		fields = append(fields,
			field{reqGivenName, digString(obj, reqGivenName) != ""},
			field{reqSurname, digString(obj, reqSurname) != ""},
			field{reqDateOfBirth, dig(obj, reqDateOfBirth) != nil},
		)
	default:
		fields = append(fields, field{reqRepresentative, hasRepresentative(persons)})
	}
	out := make([]requirement, 0, len(fields)+len(relationships)+1)
	for _, f := range fields {
		if !f.have {
			out = append(out, requirement{Field: f.field, Configurations: all})
		}
	}
	if entityType != "" && entityType != "individual" && !a.Onboarded {
		// An organization says who owns, directs and runs it: persons with the relationship,
		// or an attestation that they were all provided (none there may be).
		attested, _ := dig(obj, personsAttested).(map[string]any)
		for _, rel := range relationships {
			if !personsProvided(attested, persons, rel) {
				out = append(out, requirement{Field: rel.requirement, Eventual: true})
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
	if len(out) == 0 {
		return nil // as none made: the events compare requirements with reflect.DeepEqual
	}
	return out
}

// personsAttested is where an account attests that it provided all its persons of a
// relationship (relationships).
const personsAttested = "identity.attestations.persons_provided"

// relationships are the relationships an organization provides its persons of, each with
// the requirement it makes until they are.
var relationships = [...]relationship{
	{"owners", personsAttested + ".owners", func(r *gen.V2CoreAccountIdentityIndividualRelationship) *bool { return r.Owner }},
	{"directors", personsAttested + ".directors", func(r *gen.V2CoreAccountIdentityIndividualRelationship) *bool { return r.Director }},
	{"executives", personsAttested + ".executives", func(r *gen.V2CoreAccountIdentityIndividualRelationship) *bool { return r.Executive }},
}

type relationship struct {
	name, requirement string
	// of is a person's flag for it.
	of func(*gen.V2CoreAccountIdentityIndividualRelationship) *bool
}

// personsProvided says whether the account's persons of a relationship (owners,
// directors, executives) were provided: one of its persons has the relationship, or the
// account attests they were all provided (attested: the account's persons_provided).
func personsProvided(attested map[string]any, persons []Person, rel relationship) bool {
	if provided, _ := attested[rel.name].(bool); provided {
		return true
	}
	for _, p := range persons {
		if r := p.Object.Relationship; r != nil {
			if has := rel.of(r); has != nil && *has {
				return true
			}
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
		capability = gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityCapability
		config     = gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityConfiguration
	)
	dueStatus := gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityDeadlineStatusCurrentlyDue
	eventualStatus := gen.V2CoreAccountRequirementsEntryImpactRestrictsCapabilityDeadlineStatusEventuallyDue
	due, eventually := &deadline{Status: &dueStatus}, &deadline{Status: &eventualStatus}
	user := gen.V2CoreAccountRequirementsEntryAwaitingActionFromUser
	routine := gen.V2CoreAccountRequirementsEntryRequestedReasonCodeRoutineOnboarding
	reasons := []gen.V2CoreAccountRequirementsEntryRequestedReason{{Code: &routine}}
	summary := gen.V2CoreAccountRequirementsSummaryMinimumDeadlineStatusEventuallyDue
	// What the entries point at is made once for all of them: each entry's impact, and each
	// configuration's name and capabilities, which every entry holding it back names.
	impacts := make([]gen.V2CoreAccountRequirementsEntryImpact, len(reqs))
	type held struct {
		config *config
		caps   []capability
	}
	configs := map[string]held{}
	for i := range reqs {
		r := &reqs[i]
		var restricts []restricted
		minimum := eventually
		if !r.Eventual {
			n := 0
			for _, name := range r.Configurations {
				n += len(capabilities[name])
			}
			if n > 0 {
				restricts = make([]restricted, 0, n)
			}
			for _, name := range r.Configurations {
				h, ok := configs[name]
				if !ok {
					c := config(name)
					h = held{config: &c, caps: make([]capability, len(capabilities[name]))}
					for j, p := range capabilities[name] {
						h.caps[j] = capability(p)
					}
					configs[name] = h
				}
				for j := range h.caps {
					restricts = append(restricts, restricted{Capability: &h.caps[j], Configuration: h.config, Deadline: due})
				}
			}
			minimum, summary = due, gen.V2CoreAccountRequirementsSummaryMinimumDeadlineStatusCurrentlyDue
		}
		impacts[i].RestrictsCapabilities = restricts
		out.Entries = append(out.Entries, gen.V2CoreAccountRequirementsEntry{
			AwaitingActionFrom: &user, Description: &r.Field, Errors: []gen.V2CoreAccountRequirementsEntryError{},
			Impact: &impacts[i], MinimumDeadline: minimum, RequestedReasons: reasons,
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
