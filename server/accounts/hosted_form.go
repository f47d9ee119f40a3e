package accounts

import (
	"net/mail"
	"slices"
	"strings"
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
)

// formFieldOrder is the order the fields appear in; requirement is the account requirement
// (requirementsOf) each one meets.
var formFieldOrder = []struct{ name, requirement string }{
	{fieldDisplayName, "display_name"},
	{fieldContactEmail, "contact_email"},
	{fieldCountry, "identity.country"},
	{fieldEntityType, "identity.entity_type"},
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
	} {
		if v != nil {
			in.values[name] = *v
			in.posted[name] = true
		}
	}
	in.terms = b.TermsOfService != nil && *b.TermsOfService == gen.HostedFormTermsOfServiceAccepted
	return in
}

// missingFields are the form fields whose requirement the account still lists.
func missingFields(a Account) map[string]bool {
	listed := map[string]bool{}
	for _, r := range requirementsOf(a) {
		listed[r.Field] = true
	}
	out := map[string]bool{}
	for _, f := range formFieldOrder {
		if listed[f.requirement] {
			out[f.name] = true
		}
	}
	return out
}

// checkForm validates a submission against what the account still lacks: a field is
// required only when the account lacks it, but any field given is checked (and applied).
// It returns the values to apply (normalised; only those given) and the problems by field.
func checkForm(a Account, in formInput) (apply map[string]string, problems map[string]string) {
	missing := missingFields(a)
	apply, problems = map[string]string{}, map[string]string{}
	for _, f := range formFieldOrder {
		v := strings.TrimSpace(in.values[f.name])
		if v == "" {
			if missing[f.name] {
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
	}
	return "", "Unknown field."
}

func isASCIILetter(b byte) bool { return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') }

// applyForm writes checked values into the account and marks the link's configurations
// onboarded: the form is the only way the account accepts the terms of service, and it
// accepts them for what the link was made for, not for every configuration of the account.
func applyForm(a *Account, apply map[string]string, configurations []string) {
	for name, v := range apply {
		switch name {
		case fieldDisplayName:
			a.DisplayName = v
		case fieldContactEmail:
			a.ContactEmail = v
		case fieldCountry:
			a.Country = v
		case fieldEntityType:
			a.EntityType = v
		}
	}
	for _, name := range configurations {
		if _, applied := a.Configurations[name]; applied && !slices.Contains(a.OnboardedConfigurations, name) {
			a.OnboardedConfigurations = append(a.OnboardedConfigurations, name)
		}
	}
	slices.Sort(a.OnboardedConfigurations)
}

func accountValue(a Account, name string) string {
	switch name {
	case fieldDisplayName:
		return a.DisplayName
	case fieldContactEmail:
		return a.ContactEmail
	case fieldCountry:
		return a.Country
	case fieldEntityType:
		return a.EntityType
	}
	return ""
}

// newFormPage lays out the form of link l for account a, posting to action: the fields the
// account still lacks (all four when the link collects eventually_due fields or updates the
// account), prefilled with what is known or, when answering a submission, with what was
// sent.
func newFormPage(action string, l AccountLink, a Account, nonce string, in *formInput, problems map[string]string) formPage {
	heading := "Account onboarding"
	if l.UseCase == string(gen.AccountLinkUseCaseTypeAccountUpdate) {
		heading = "Account update"
	}
	p := formPage{
		Title:          heading + " (" + strings.Join(l.Configurations, ", ") + ")",
		Heading:        heading,
		Livemode:       l.Livemode,
		AccountName:    a.DisplayName,
		Configurations: l.Configurations,
		Action:         action,
		Nonce:          nonce,
		HasErrors:      len(problems) > 0,
		TermsError:     problems[fieldTerms],
	}
	missing := missingFields(a)
	showAll := l.CollectFields == string(gen.CollectionFieldsEventuallyDue) || l.UseCase == string(gen.AccountLinkUseCaseTypeAccountUpdate)
	for _, f := range formFieldOrder {
		posted := in != nil && in.posted[f.name]
		if !missing[f.name] && !showAll && !posted && problems[f.name] == "" {
			continue
		}
		value := accountValue(a, f.name)
		if posted {
			// As sent, except bytes that are not UTF-8 (refused by checkField), which
			// would make the page itself invalid.
			value = strings.ToValidUTF8(in.values[f.name], "\uFFFD")
		}
		p.Fields = append(p.Fields, newFormField(f.name, value, missing[f.name], problems[f.name]))
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
	case fieldEntityType:
		f.Label = "Business type"
		for _, o := range entityTypes {
			o.Selected = o.Value == value
			f.Options = append(f.Options, o)
		}
	}
	return f
}
