package accounts

import (
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	gen "github.com/understudy-dev/understudy/gen/accounts"
)

// The form's fields, named as the form posts them.
const (
	fieldDisplayName  = "display_name"
	fieldContactEmail = "contact_email"
	fieldCountry      = "country"
	fieldEntityType   = "entity_type"
	fieldTerms        = "terms_of_service"
	fieldGivenName    = "given_name"
	fieldSurname      = "surname"
	fieldDateOfBirth  = "date_of_birth"
	fieldRepGivenName = "representative_given_name"
	fieldRepSurname   = "representative_surname"
)

// formFieldOrder is the order the fields appear in; requirement is the account requirement
// (requirementsOf) each one meets.
var formFieldOrder = []struct{ name, requirement string }{
	{fieldDisplayName, "display_name"},
	{fieldContactEmail, "contact_email"},
	{fieldCountry, "identity.country"},
	{fieldEntityType, "identity.entity_type"},
	{fieldGivenName, reqGivenName},
	{fieldSurname, reqSurname},
	{fieldDateOfBirth, reqDateOfBirth},
	{fieldRepGivenName, reqRepresentative},
	{fieldRepSurname, reqRepresentative},
}

// whoFields are the fields about who is behind the account, which depend on its entity
// type: an individual's own, or an organization's representative.
var whoFields = map[string]string{
	fieldGivenName: "individual", fieldSurname: "individual", fieldDateOfBirth: "individual",
	fieldRepGivenName: "organization", fieldRepSurname: "organization",
}

// entityTypes are the values identity.entity_type takes, with their labels.
var entityTypes = []selectOption{
	{Value: "company", Label: "Company"},
	{Value: "government_entity", Label: "Government entity"},
	{Value: "individual", Label: "Individual"},
	{Value: "non_profit", Label: "Non-profit organization"},
}

// formPage is what form.html shows.
type formPage struct {
	Title          string
	Heading        string
	Livemode       bool
	AccountName    string
	Configurations []string
	Action         string
	Nonce          string
	Fields         []formField
	TermsAccepted  bool
	TermsError     string
	HasErrors      bool
}

type formField struct {
	Name, Label, Type, Autocomplete, Pattern, Hint string
	MaxLength                                      int
	Value                                          string
	Required                                       bool
	Error                                          string
	Options                                        []selectOption // a <select> when not empty
}

type selectOption struct {
	Value, Label string
	Selected     bool
}

// formInput is a submitted form: what was sent for each field ("" when nothing was), as
// sent (posted says which fields were in the form at all, to show them back).
type formInput struct {
	values map[string]string
	posted map[string]bool
	terms  bool
}

func formInputOf(b *gen.HostedForm) formInput {
	in := formInput{values: map[string]string{}, posted: map[string]bool{}}
	if b == nil {
		return in
	}
	for name, v := range map[string]*string{
		fieldDisplayName: b.DisplayName, fieldContactEmail: b.ContactEmail,
		fieldCountry: b.Country, fieldEntityType: b.EntityType,
		fieldGivenName: b.GivenName, fieldSurname: b.Surname, fieldDateOfBirth: b.DateOfBirth,
		fieldRepGivenName: b.RepresentativeGivenName, fieldRepSurname: b.RepresentativeSurname,
	} {
		if v != nil {
			in.values[name] = *v
			in.posted[name] = true
		}
	}
	in.terms = b.TermsOfService != nil && *b.TermsOfService == gen.HostedFormTermsOfServiceAccepted
	return in
}

// missingFields are the form fields whose requirement the account still lists. While the
// entity type is not known, the fields of both kinds of entity are listed too (shown, and
// required by checkForm for the entity type the form chooses).
func missingFields(a Account, obj map[string]any, persons []Person) map[string]bool {
	listed := map[string]bool{}
	for _, r := range requirementsOf(&a, obj, persons) {
		listed[r.Field] = true
	}
	out := map[string]bool{}
	for _, f := range formFieldOrder {
		if listed[f.requirement] || (listed["identity.entity_type"] && whoFields[f.name] != "") {
			out[f.name] = true
		}
	}
	return out
}

// checkForm validates a submission against what the account still lacks: a field is
// required only when the account lacks it, but any field given is checked (and applied).
// It returns the values to apply (normalised; only those given) and the problems by field.
func checkForm(a Account, obj map[string]any, persons []Person, in formInput) (apply map[string]string, problems map[string]string) {
	missing := missingFields(a, obj, persons)
	kind := digString(obj, "identity.entity_type")
	if v := strings.TrimSpace(in.values[fieldEntityType]); v != "" {
		kind = v
	}
	if kind != "individual" {
		kind = "organization"
	}
	apply, problems = map[string]string{}, map[string]string{}
	for _, f := range formFieldOrder {
		v := strings.TrimSpace(in.values[f.name])
		if v == "" {
			if missing[f.name] && (whoFields[f.name] == "" || whoFields[f.name] == kind) {
				problems[f.name] = requiredMessage[f.name]
			}
			continue
		}
		norm, problem := checkField(f.name, v)
		if problem != "" {
			problems[f.name] = problem
			continue
		}
		apply[f.name] = norm
	}
	if !in.terms {
		problems[fieldTerms] = "Accept the terms of service to continue."
	}
	return apply, problems
}

var requiredMessage = map[string]string{
	fieldDisplayName:  "Enter a display name.",
	fieldContactEmail: "Enter an email address.",
	fieldCountry:      "Enter a two-letter country code.",
	fieldEntityType:   "Choose a business type.",
	fieldGivenName:    "Enter your given name.",
	fieldSurname:      "Enter your surname.",
	fieldDateOfBirth:  "Enter your date of birth.",
	fieldRepGivenName: "Enter the representative's given name.",
	fieldRepSurname:   "Enter the representative's surname.",
}

// checkField validates one non-empty, trimmed value and returns it as stored.
func checkField(name, v string) (string, string) {
	switch name {
	case fieldDisplayName:
		if utf8.RuneCountInString(v) > 255 {
			return "", "Use at most 255 characters."
		}
		// Bytes that are not UTF-8 are no more text than control characters are (stored,
		// they would become U+FFFD).
		if !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			return "", "Use letters, digits, spaces and punctuation only."
		}
		return v, ""
	case fieldContactEmail:
		addr, err := mail.ParseAddress(v)
		if err != nil || addr.Name != "" || addr.Address != v {
			return "", "Enter an email address such as name@example.com."
		}
		return v, ""
	case fieldCountry:
		if len(v) != 2 || !isASCIILetter(v[0]) || !isASCIILetter(v[1]) {
			return "", "Enter a two-letter country code such as US."
		}
		return strings.ToUpper(v), ""
	case fieldEntityType:
		for _, o := range entityTypes {
			if v == o.Value {
				return v, ""
			}
		}
		return "", "Choose one of the listed business types."
	case fieldGivenName, fieldSurname, fieldRepGivenName, fieldRepSurname:
		if utf8.RuneCountInString(v) > 255 {
			return "", "Use at most 255 characters."
		}
		if !utf8.ValidString(v) || strings.ContainsFunc(v, unicode.IsControl) {
			return "", "Use letters, spaces and punctuation only."
		}
		return v, ""
	case fieldDateOfBirth:
		d, err := time.Parse(time.DateOnly, v)
		if err != nil || d.Year() < 1900 {
			return "", "Enter a date such as 1990-01-31."
		}
		return d.Format(time.DateOnly), ""
	}
	return "", "Unknown field."
}

func isASCIILetter(b byte) bool { return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') }

// applyForm writes checked values into the account and marks the link's configurations
// onboarded: the form is the only way the account accepts the terms of service, and it
// accepts them for what the link was made for, not for every configuration of the account.
// A representative named in the form is returned as a new person for the caller to store
// (nil when the form names none).
func applyForm(a *Account, obj map[string]any, apply map[string]string, configurations []string) map[string]any {
	var rep map[string]any
	for name, v := range apply {
		switch name {
		case fieldGivenName, fieldSurname:
			mergeTree(obj, map[string]any{"identity": map[string]any{"individual": map[string]any{name: v}}})
		case fieldDateOfBirth:
			d, _ := time.Parse(time.DateOnly, v)
			dob := map[string]any{"day": float64(d.Day()), "month": float64(d.Month()), "year": float64(d.Year())}
			mergeTree(obj, map[string]any{"identity": map[string]any{"individual": map[string]any{"date_of_birth": dob}}})
		case fieldRepGivenName, fieldRepSurname:
			if rep == nil {
				rep = map[string]any{"relationship": map[string]any{"representative": true}}
			}
			rep[strings.TrimPrefix(name, "representative_")] = v
		case fieldDisplayName, fieldContactEmail:
			obj[name] = v
		case fieldCountry, fieldEntityType:
			mergeTree(obj, map[string]any{"identity": map[string]any{map[string]string{fieldCountry: "country", fieldEntityType: "entity_type"}[name]: v}})
		}
	}
	for _, name := range configurations {
		if a.Applied(name) && !slices.Contains(a.OnboardedConfigurations, name) {
			a.OnboardedConfigurations = append(a.OnboardedConfigurations, name)
		}
	}
	slices.Sort(a.OnboardedConfigurations)
	if rep["given_name"] == nil || rep["surname"] == nil {
		return nil
	}
	return rep
}

// accountValue is what the account (its object as the tree obj) holds for a form field.
func accountValue(obj map[string]any, name string) string {
	switch name {
	case fieldDisplayName, fieldContactEmail:
		return digString(obj, name)
	case fieldCountry:
		return digString(obj, "identity.country")
	case fieldEntityType:
		return digString(obj, "identity.entity_type")
	case fieldGivenName, fieldSurname:
		return digString(obj, "identity.individual."+name)
	case fieldDateOfBirth:
		y, _ := dig(obj, reqDateOfBirth+".year").(float64)
		m, _ := dig(obj, reqDateOfBirth+".month").(float64)
		d, _ := dig(obj, reqDateOfBirth+".day").(float64)
		if y == 0 {
			return ""
		}
		return fmt.Sprintf("%04d-%02d-%02d", int(y), int(m), int(d))
	}
	return ""
}

// newFormPage lays out the form of link l for account a, posting to action: the fields the
// account still lacks (all four when the link collects eventually_due fields or updates the
// account), prefilled with what is known or, when answering a submission, with what was
// sent.
func newFormPage(action string, l AccountLink, a Account, obj map[string]any, persons []Person, nonce string, in *formInput, problems map[string]string) formPage {
	kindOf := digString(obj, "identity.entity_type")
	heading := "Account onboarding"
	if l.useCase() == string(gen.AccountLinkUseCaseTypeAccountUpdate) {
		heading = "Account update"
	}
	p := formPage{
		Title:          heading + " (" + strings.Join(l.configurations(), ", ") + ")",
		Heading:        heading,
		Livemode:       l.Object.Livemode,
		AccountName:    digString(obj, "display_name"),
		Configurations: l.configurations(),
		Action:         action,
		Nonce:          nonce,
		HasErrors:      len(problems) > 0,
		TermsError:     problems[fieldTerms],
	}
	missing := missingFields(a, obj, persons)
	showAll := l.flow().CollectionOptions.Fields == gen.CollectionFieldsEventuallyDue || l.useCase() == string(gen.AccountLinkUseCaseTypeAccountUpdate)
	for _, f := range formFieldOrder {
		posted := in != nil && in.posted[f.name]
		if !missing[f.name] && !showAll && !posted && problems[f.name] == "" {
			continue
		}
		if kind := whoFields[f.name]; kind != "" && !missing[f.name] && problems[f.name] == "" && !posted &&
			(kindOf == "" || (kind == "individual") != (kindOf == "individual")) {
			continue // the other kind of entity's fields, or a representative already named
		}
		value := accountValue(obj, f.name)
		if posted {
			// As sent, except bytes that are not UTF-8 (refused by checkField), which
			// would make the page itself invalid.
			value = strings.ToValidUTF8(in.values[f.name], "\uFFFD")
		}
		required := missing[f.name] && (whoFields[f.name] == "" || kindOf != "")
		p.Fields = append(p.Fields, newFormField(f.name, value, required, problems[f.name]))
	}
	if in != nil {
		p.TermsAccepted = in.terms
	}
	return p
}

func newFormField(name, value string, required bool, problem string) formField {
	f := formField{Name: name, Value: value, Required: required, Error: problem, Type: "text"}
	switch name {
	case fieldDisplayName:
		f.Label, f.Autocomplete, f.MaxLength = "Display name", "organization", 255
		f.Hint = "The name shown for the account."
	case fieldContactEmail:
		f.Label, f.Type, f.Autocomplete, f.MaxLength = "Contact email", "email", "email", 800
	case fieldCountry:
		f.Label, f.Autocomplete, f.MaxLength, f.Pattern = "Country", "country", 2, "[A-Za-z]{2}"
		f.Hint = "Two-letter code, such as US, GB or FR."
	case fieldGivenName:
		f.Label, f.Autocomplete, f.MaxLength = "Given name", "given-name", 255
		f.Hint = "For an individual."
	case fieldSurname:
		f.Label, f.Autocomplete, f.MaxLength = "Surname", "family-name", 255
		f.Hint = "For an individual."
	case fieldDateOfBirth:
		f.Label, f.Type, f.Autocomplete = "Date of birth", "date", "bday"
		f.Hint = "For an individual."
	case fieldRepGivenName:
		f.Label, f.MaxLength = "Representative's given name", 255
		f.Hint = "For a company or other organization: the person who represents it."
	case fieldRepSurname:
		f.Label, f.MaxLength = "Representative's surname", 255
		f.Hint = "For a company or other organization."
	case fieldEntityType:
		f.Label = "Business type"
		for _, o := range entityTypes {
			o.Selected = o.Value == value
			f.Options = append(f.Options, o)
		}
	}
	return f
}
