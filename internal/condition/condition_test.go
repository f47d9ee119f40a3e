package condition

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const (
	blobRead    = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/read"
	blobWrite   = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/write"
	blobAdd     = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/add/action"
	projectTag  = "Microsoft.Storage/storageAccounts/blobServices/containers/blobs/tags:Project<$key_case_sensitive$>"
	engProject  = "Microsoft.Directory/CustomSecurityAttributes/Id:Engineering_Project"
	roleAssignW = "Microsoft.Authorization/roleAssignments/write"
)

type validCase struct {
	name string
	in   string
	want string // canonical form; empty means "don't check"
}

// validCases are conditions Parse must accept. Most come from the Azure
// ABAC documentation.
var validCases = []validCase{
	{
		name: "docs simple container name",
		in:   "((!(ActionMatches{'" + blobRead + "'})) OR (@Resource[Microsoft.Storage/storageAccounts/blobServices/containers:name] StringEquals 'blobs-example-container'))",
		want: "!(ActionMatches{'" + blobRead + "'}) OR @Resource[Microsoft.Storage/storageAccounts/blobServices/containers:name] StringEquals 'blobs-example-container'",
	},
	{
		name: "docs read blobs with tag, multi-line",
		in: "(\n (\n  !(ActionMatches{'" + blobRead + "'} AND NOT SubOperationMatches{'Blob.List'})\n )\n OR \n (\n" +
			"  @Resource[" + projectTag + "] StringEquals 'Cascade'\n )\n)",
		want: "!(ActionMatches{'" + blobRead + "'} AND !(SubOperationMatches{'Blob.List'})) OR @Resource[" + projectTag + "] StringEquals 'Cascade'",
	},
	{
		name: "docs new blobs must include tag (Request)",
		in: "(\r\n\t(\r\n\t\t!(ActionMatches{'" + blobWrite + "'} AND SubOperationMatches{'Blob.Write.WithTagHeaders'})\r\n\t\tAND\r\n" +
			"\t\t!(ActionMatches{'" + blobAdd + "'} AND SubOperationMatches{'Blob.Write.WithTagHeaders'})\r\n\t)\r\n\tOR\r\n\t(\r\n" +
			"\t\t@Request[" + projectTag + "] StringEquals 'Cascade'\r\n\t)\r\n)",
		want: "!(ActionMatches{'" + blobWrite + "'} AND SubOperationMatches{'Blob.Write.WithTagHeaders'}) AND " +
			"!(ActionMatches{'" + blobAdd + "'} AND SubOperationMatches{'Blob.Write.WithTagHeaders'}) OR " +
			"@Request[" + projectTag + "] StringEquals 'Cascade'",
	},
	{
		name: "docs allowed tag keys",
		in:   "@Request[Microsoft.Storage/storageAccounts/blobServices/containers/blobs/tags&$keys$&] ForAllOfAnyValues:StringEquals {'Project', 'Program'}",
		want: "@Request[Microsoft.Storage/storageAccounts/blobServices/containers/blobs/tags&$keys$&] ForAllOfAnyValues:StringEquals {'Project', 'Program'}",
	},
	{
		name: "docs allowed tag values",
		in:   "@Request[" + projectTag + "] ForAnyOfAnyValues:StringEquals {'Cascade','Baker' ,  'Skagit'}",
		want: "@Request[" + projectTag + "] ForAnyOfAnyValues:StringEquals {'Cascade', 'Baker', 'Skagit'}",
	},
	{
		name: "docs principal custom security attribute equals resource tag",
		in:   "@Principal[" + engProject + "] StringEquals @Resource[" + projectTag + "]",
		want: "@Principal[" + engProject + "] StringEquals @Resource[" + projectTag + "]",
	},
	{
		name: "docs principal multi-valued attribute",
		in:   "@Resource[" + projectTag + "] ForAnyOfAnyValues:StringEquals @Principal[" + engProject + "]",
	},
	{
		name: "docs environment UtcNow",
		in:   "@Environment[UtcNow] DateTimeGreaterThan '2023-05-01T13:00:00.0Z'",
		want: "@Environment[UtcNow] DateTimeGreaterThan '2023-05-01T13:00:00.0Z'",
	},
	{
		name: "docs environment time window",
		in:   "(@Environment[UtcNow] DateTimeGreaterThanEquals '2023-05-01T00:00:00Z' AND @Environment[UtcNow] DateTimeLessThan '2023-05-02T00:00:00+02:00')",
		want: "@Environment[UtcNow] DateTimeGreaterThanEquals '2023-05-01T00:00:00Z' AND @Environment[UtcNow] DateTimeLessThan '2023-05-02T00:00:00+02:00'",
	},
	{
		name: "docs environment private link",
		in:   "@Environment[isPrivateLink] BoolEquals true",
		want: "@Environment[isPrivateLink] BoolEquals true",
	},
	{
		name: "docs environment private endpoint",
		in:   "@Environment[Microsoft.Network/privateEndpoints] StringEqualsIgnoreCase '/subscriptions/aaaa0a0a-bb1b-cc2c-dd3d-eeeeee4e4e4e/resourceGroups/example-group/providers/Microsoft.Network/privateEndpoints/privateendpoint1'",
	},
	{
		name: "docs environment subnet list",
		in:   "@Environment[Microsoft.Network/virtualNetworks/subnets] ForAnyOfAnyValues:StringEqualsIgnoreCase {'/subscriptions/aaaa0a0a-bb1b-cc2c-dd3d-eeeeee4e4e4e/resourceGroups/example-group/providers/Microsoft.Network/virtualNetworks/virtualnetwork1/subnets/default'}",
	},
	{
		name: "docs delegate role assignments with unquoted GUID list",
		in: "((!(ActionMatches{'" + roleAssignW + "'})) OR (@Request[Microsoft.Authorization/roleAssignments:RoleDefinitionId] " +
			"ForAnyOfAnyValues:GuidEquals {ba92f5b4-2d11-453d-a403-e96b0029c9fe, 2A2B9908-6EA1-4AE2-8E65-A410DF84E7D1}))",
		want: "!(ActionMatches{'" + roleAssignW + "'}) OR @Request[Microsoft.Authorization/roleAssignments:RoleDefinitionId] " +
			"ForAnyOfAnyValues:GuidEquals {ba92f5b4-2d11-453d-a403-e96b0029c9fe, 2A2B9908-6EA1-4AE2-8E65-A410DF84E7D1}",
	},
	{
		name: "GuidEquals quoted",
		in:   "@Request[Microsoft.Authorization/roleAssignments:PrincipalId] GuidEquals '00000000-0000-0000-0000-000000000000'",
		want: "@Request[Microsoft.Authorization/roleAssignments:PrincipalId] GuidEquals '00000000-0000-0000-0000-000000000000'",
	},
	{
		name: "GuidNotEquals unquoted",
		in:   "@Request[Microsoft.Authorization/roleAssignments:PrincipalId] guidnotequals aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
		want: "@Request[Microsoft.Authorization/roleAssignments:PrincipalId] GuidNotEquals aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
	},
	{
		name: "NumericLessThan integer",
		in:   "@Resource[Microsoft.Storage/storageAccounts/blobServices/containers/blobs/tags:Level<$key_case_sensitive$>] NumericLessThan 3",
	},
	{
		name: "Numeric signed fraction",
		in:   "@Resource[x:y] NumericGreaterThanEquals -1.5 or @Resource[x:y] NumericNotEquals +42",
		want: "@Resource[x:y] NumericGreaterThanEquals -1.5 OR @Resource[x:y] NumericNotEquals +42",
	},
	{
		name: "docs numeric cross product",
		in:   "@Resource[x:sizes] ForAllOfAllValues:NumericLessThan {5, 15, 18}",
		want: "@Resource[x:sizes] ForAllOfAllValues:NumericLessThan {5, 15, 18}",
	},
	{
		name: "docs blob version DateTimeEquals",
		in:   "@Request[Microsoft.Storage/storageAccounts/blobServices/containers/blobs:versionId] DateTimeEquals '2022-06-01T23:38:32.8883645Z'",
	},
	{
		name: "docs current version BoolEquals, mixed case value",
		in:   "@Resource[Microsoft.Storage/storageAccounts/blobServices/containers/blobs:isCurrentVersion] BoolEquals TRUE",
		want: "@Resource[Microsoft.Storage/storageAccounts/blobServices/containers/blobs:isCurrentVersion] BoolEquals true",
	},
	{
		name: "BoolNotEquals false",
		in:   "@Environment[isPrivateLink] BoolNotEquals False",
		want: "@Environment[isPrivateLink] BoolNotEquals false",
	},
	{
		name: "docs blob path StringLike",
		in:   "@Resource[Microsoft.Storage/storageAccounts/blobServices/containers/blobs:path] StringLike 'uploads/contoso/*'",
	},
	{
		name: "escaped wildcard kept as written",
		in:   `@Resource[x:path] StringNotLikeIgnoreCase 'a\*b\?'`,
		want: `@Resource[x:path] StringNotLikeIgnoreCase 'a\*b\?'`,
	},
	{
		name: "docs old suboperation syntax",
		in:   "(!(ActionMatches{'" + blobRead + "'} AND @Request[subOperation] ForAnyOfAnyValues:StringEqualsIgnoreCase {'Blob.List'}))",
		want: "!(ActionMatches{'" + blobRead + "'} AND @Request[subOperation] ForAnyOfAnyValues:StringEqualsIgnoreCase {'Blob.List'})",
	},
	{
		name: "lowercase keywords, operators and sources",
		in:   "actionmatches{'a'} and not @resource[a:b] stringequals 'c' or @request[x] boolequals FALSE",
		want: "ActionMatches{'a'} AND !(@Resource[a:b] StringEquals 'c') OR @Request[x] BoolEquals false",
	},
	{
		name: "symbolic operators without spaces",
		in:   "!ActionMatches{'a'}||@Resource[a:b] StringStartsWith 'c'&&!(SubOperationMatches{'s'})",
		want: "!(ActionMatches{'a'}) OR @Resource[a:b] StringStartsWith 'c' AND !(SubOperationMatches{'s'})",
	},
	{
		name: "precedence AND over OR",
		in:   "ActionMatches{'a'} OR ActionMatches{'b'} AND ActionMatches{'c'}",
		want: "ActionMatches{'a'} OR ActionMatches{'b'} AND ActionMatches{'c'}",
	},
	{
		name: "parentheses override precedence",
		in:   "(ActionMatches{'a'} OR ActionMatches{'b'}) AND ActionMatches{'c'}",
		want: "(ActionMatches{'a'} OR ActionMatches{'b'}) AND ActionMatches{'c'}",
	},
	{
		name: "right-nested AND keeps its parentheses",
		in:   "ActionMatches{'a'} AND (ActionMatches{'b'} AND ActionMatches{'c'})",
		want: "ActionMatches{'a'} AND (ActionMatches{'b'} AND ActionMatches{'c'})",
	},
	{
		name: "redundant parentheses dropped",
		in:   "((((ActionMatches{'a'}))))",
		want: "ActionMatches{'a'}",
	},
	{
		name: "nested NOT",
		in:   "NOT (NOT (ActionMatches{'a'})) AND !!SubOperationMatches{'b'}",
		want: "!(!(ActionMatches{'a'})) AND !(!(SubOperationMatches{'b'}))",
	},
	{
		name: "NOT over a group",
		in:   "NOT(@Resource[a:b] StringEquals 'x' OR @Resource[a:c] StringEquals 'y')",
		want: "!(@Resource[a:b] StringEquals 'x' OR @Resource[a:c] StringEquals 'y')",
	},
	{
		name: "single-element list stays a list",
		in:   "@Resource[a:b] StringEquals {'x'}",
		want: "@Resource[a:b] StringEquals {'x'}",
	},
	{
		name: "empty string value",
		in:   "@Resource[a:b] StringNotEquals ''",
		want: "@Resource[a:b] StringNotEquals ''",
	},
	{
		name: "unicode in names and values",
		in:   "@Resource[tags:Größe<$key$>] StringEquals 'Größe ✓'",
		want: "@Resource[tags:Größe<$key$>] StringEquals 'Größe ✓'",
	},
	{
		name: "environment attribute without colon",
		in:   "@Environment[Microsoft.Network/privateEndpoints] StringNotEqualsIgnoreCase 'x'",
	},
	{
		name: "date list with GuidEquals-like spacing",
		in:   "@Environment[UtcNow] ForAnyOfAllValues:DateTimeNotEquals { '2023-05-01T13:00:00Z' , '2024-02-29T00:00:00.123456789-07:00' }",
		want: "@Environment[UtcNow] ForAnyOfAllValues:DateTimeNotEquals {'2023-05-01T13:00:00Z', '2024-02-29T00:00:00.123456789-07:00'}",
	},
	{
		name: "RFC 3339 lower-case t and z kept as written",
		in:   "@Environment[UtcNow] DateTimeLessThanEquals '2023-05-01t13:00:00z'",
		want: "@Environment[UtcNow] DateTimeLessThanEquals '2023-05-01t13:00:00z'",
	},
	{
		name: "depth exactly MaxDepth parentheses",
		in:   strings.Repeat("(", MaxDepth) + "ActionMatches{'a'}" + strings.Repeat(")", MaxDepth),
		want: "ActionMatches{'a'}",
	},
	{
		name: "depth exactly MaxDepth NOTs",
		in:   strings.Repeat("!", MaxDepth) + "ActionMatches{'a'}",
		want: strings.Repeat("!(", MaxDepth) + "ActionMatches{'a'}" + strings.Repeat(")", MaxDepth),
	},
	{
		name: "depth exactly MaxDepth of !(",
		in:   strings.Repeat("!(", MaxDepth) + "ActionMatches{'a'}" + strings.Repeat(")", MaxDepth),
		want: strings.Repeat("!(", MaxDepth) + "ActionMatches{'a'}" + strings.Repeat(")", MaxDepth),
	},
	{
		name: "exactly MaxLength bytes",
		in:   "ActionMatches{'a'}" + strings.Repeat(" ", MaxLength-len("ActionMatches{'a'}")),
		want: "ActionMatches{'a'}",
	},
}

type invalidCase struct {
	name string
	in   string
	at   string // the error offset is the first index of at in in; "<EOF>" means len(in)
	msg  string // substring of the message
}

// invalidCases are conditions Parse must reject.
var invalidCases = []invalidCase{
	{"empty", "", "<EOF>", "condition is empty"},
	{"whitespace only", " \t\r\n ", " \t", "condition is empty"},
	{"too long", "ActionMatches{'" + strings.Repeat("a", MaxLength) + "'}", "", "longer than the maximum of 8192"},
	{"unterminated quote", "@Resource[a:b] StringEquals 'abc", "'abc", "unterminated string"},
	{"unterminated quote in ActionMatches", "ActionMatches{'abc}", "'abc", "unterminated string"},
	{"missing operator", "@Resource[a:b] 'x'", "'x'", "expected operator after attribute @Resource[a:b], found string 'x'"},
	{"missing operator at end", "@Resource[a:b]", "<EOF>", "expected operator after attribute @Resource[a:b], found end of input"},
	{"missing operator before AND", "@Resource[a:b] AND ActionMatches{'x'}", "AND", `found "AND"`},
	{"attribute where operator expected", "@Resource[a:b] @Request[c]", "@Request", "expected operator"},
	{"unknown operator", "@Resource[a:b] StringIs 'x'", "StringIs", `unknown operator "StringIs"`},
	{"operator with NOT prefix", "@Resource[a:b] NotStringEquals 'x'", "NotStringEquals", "unknown operator"},
	{"unknown quantifier", "@Resource[a:b] ForSomeValues:StringEquals {'x'}", "ForSome", "unknown quantifier"},
	{"quantifier without operator", "@Resource[a:b] ForAnyOfAnyValues: {'x'}", " {", "expected operator name"},
	{"unknown operator after quantifier", "@Resource[a:b] ForAnyOfAnyValues:StringIs {'x'}", "StringIs", "unknown operator"},
	{"missing value", "@Resource[a:b] StringEquals", "<EOF>", "StringEquals needs a quoted string value, found end of input"},
	{"bad date month", "@Environment[UtcNow] DateTimeGreaterThan '2023-13-01T00:00:00Z'", "'2023", "RFC 3339"},
	{"bad date Feb 30", "@Environment[UtcNow] DateTimeLessThan '2023-02-30T00:00:00Z'", "'2023", "RFC 3339"},
	{"date without time", "@Environment[UtcNow] DateTimeEquals '2023-05-01'", "'2023", "RFC 3339"},
	{"unquoted date", "@Environment[UtcNow] DateTimeGreaterThan 2023-05-01T13:00:00Z", "2023", "quoted date-time"},
	{"bad guid", "@Request[r:PrincipalId] GuidEquals 'not-a-guid'", "'not", "needs a GUID"},
	{"guid too short", "@Request[r:PrincipalId] GuidEquals aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeee", "aaaa", "needs a GUID"},
	{"guid bad hex", "@Request[r:PrincipalId] GuidEquals 'gggggggg-bbbb-cccc-dddd-eeeeeeeeeeee'", "'ggg", "needs a GUID"},
	{"bad guid in list", "@Request[r:Id] ForAnyOfAnyValues:GuidEquals {ba92f5b4-2d11-453d-a403-e96b0029c9fe, 1234}", "1234", "needs a GUID"},
	{"numeric op with string", "@Resource[a:b] NumericLessThan '5'", "'5'", "NumericLessThan needs an unquoted number"},
	{"numeric op with word", "@Resource[a:b] NumericLessThan five", "five", "needs an unquoted number"},
	{"numeric trailing dot", "@Resource[a:b] NumericEquals 1.", "1.", "needs an unquoted number"},
	{"numeric exponent", "@Resource[a:b] NumericEquals 1e5", "1e5", "needs an unquoted number"},
	{"numeric list with string", "@Resource[a:b] ForAnyOfAnyValues:NumericEquals {1, '2'}", "'2'", "needs an unquoted number"},
	{"bool quoted", "@Environment[isPrivateLink] BoolEquals 'true'", "'true'", "needs true or false"},
	{"bool other word", "@Environment[isPrivateLink] BoolEquals yes", "yes", "needs true or false"},
	{"string op unquoted", "@Resource[a:b] StringEquals abc", "abc", "needs a quoted string value"},
	{"string op number", "@Resource[a:b] StringEquals 5", "5", "needs a quoted string value"},
	{"string list with number", "@Resource[a:b] ForAnyOfAnyValues:StringEquals {'a', 'b', 3}", "3}", "needs a quoted string value"},
	{"empty list", "@Resource[a:b] StringEquals {}", "}", "empty value list"},
	{"trailing comma in list", "@Resource[a:b] StringEquals {'a',}", "}", "needs a quoted string value"},
	{"missing comma in list", "@Resource[a:b] StringEquals {'a' 'b'}", "'b'", "expected ',' or '}'"},
	{"unclosed list", "@Resource[a:b] StringEquals {'a'", "<EOF>", "value list opened at offset 28"},
	{"unbalanced open paren", "(ActionMatches{'a'}", "<EOF>", "to close the '(' at offset 0"},
	{"unbalanced nested parens", "((ActionMatches{'a'}) OR (ActionMatches{'b'})", "<EOF>", "to close the '(' at offset 0"},
	{"unbalanced close paren", "ActionMatches{'a'})", ")", "no matching '('"},
	{"empty parens", "()", ")", "expected a condition"},
	{"trailing word", "ActionMatches{'a'} foo", "foo", `expected AND, OR or end of input, found "foo"`},
	{"trailing string", "@Resource[a:b] StringEquals 'x' 'y'", "'y'", "expected AND, OR or end of input"},
	{"two atoms without operator", "ActionMatches{'a'} ActionMatches{'b'}", "ActionMatches{'b'}", "expected AND, OR"},
	{"unknown attribute source", "@Foo[bar] StringEquals 'x'", "@Foo", `unknown attribute source "@Foo"`},
	{"attribute without source", "@[x] StringEquals 'x'", "@", "expected attribute source"},
	{"attribute without bracket", "@Resource x StringEquals 'x'", " x", "expected '[' after @Resource"},
	{"empty brackets", "@Resource[] StringEquals 'x'", "]", "empty attribute name"},
	{"blank brackets", "@Request[  ] StringEquals 'x'", "]", "empty attribute name"},
	{"unterminated brackets", "@Resource[abc StringEquals 'x'", "[", "unterminated attribute name"},
	{"right attribute unknown source", "@Resource[a:b] StringEquals @Foo[c]", "@Foo", "unknown attribute source"},
	{"too deep parentheses", strings.Repeat("(", MaxDepth+1) + "ActionMatches{'a'}" + strings.Repeat(")", MaxDepth+1), strings.Repeat("(", 1) + "ActionMatches", "nested too deeply"},
	{"too deep NOT", strings.Repeat("!", MaxDepth+1) + "ActionMatches{'a'}", "!ActionMatches", "nested too deeply"},
	{"too deep !(", strings.Repeat("!(", MaxDepth+1) + "ActionMatches{'a'}" + strings.Repeat(")", MaxDepth+1), "(ActionMatches", "nested too deeply"},
	{"ActionMatches without braces", "ActionMatches 'x'", "'x'", "expected '{' after ActionMatches"},
	{"ActionMatches unquoted", "ActionMatches{x}", "x}", "expected a quoted action"},
	{"ActionMatches empty", "ActionMatches{''}", "''", "empty action"},
	{"ActionMatches list", "ActionMatches{'a', 'b'}", ",", "expected '}'"},
	{"SubOperationMatches unclosed", "SubOperationMatches{'Blob.List'", "<EOF>", "expected '}' to close the '{' of SubOperationMatches"},
	{"ActionMatches compared", "ActionMatches{'a'} StringEquals 'x'", "StringEquals", "expected AND, OR"},
	{"dangling AND", "ActionMatches{'a'} AND", "<EOF>", "expected a condition"},
	{"dangling OR symbol", "ActionMatches{'a'} ||", "<EOF>", "expected a condition"},
	{"leading OR", "OR ActionMatches{'a'}", "OR", "expected a condition"},
	{"NOT alone", "NOT", "<EOF>", "expected a condition"},
	{"bang alone", "!", "<EOF>", "expected a condition"},
	{"single ampersand", "ActionMatches{'a'} & ActionMatches{'b'}", "&", "use '&&'"},
	{"single pipe", "ActionMatches{'a'} | ActionMatches{'b'}", "|", "use '||'"},
	{"double quotes", "@Resource[a:b] StringEquals \"x\"", "\"", "single quotes"},
	{"invalid UTF-8", "ActionMatches{'a'} \xff", "\xff", "invalid UTF-8"},
	{"unicode operator", "ActionMatches{'a'} ∧ ActionMatches{'b'}", "∧", "unexpected character"},
	{"unknown word", "Foo", "Foo", `expected a condition`},
	{"bare value", "'abc'", "'abc'", "expected a condition"},
	{"comparison missing left attribute", "StringEquals 'x'", "StringEquals", "expected a condition"},
}

func TestParseValid(t *testing.T) {
	for _, tt := range validCases {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q) failed: %v", tt.in, err)
			}
			got := e.String()
			if tt.want != "" && got != tt.want {
				t.Errorf("String() mismatch\n got: %s\nwant: %s", got, tt.want)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	for _, tt := range invalidCases {
		t.Run(tt.name, func(t *testing.T) {
			e, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want error", tt.in, e)
			}
			if e != nil {
				t.Errorf("Parse returned a non-nil Expr with an error")
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error is %T, want *condition.Error", err)
			}
			want := MaxLength
			switch {
			case tt.at == "<EOF>":
				want = len(tt.in)
			case tt.at != "":
				want = strings.Index(tt.in, tt.at)
				if want < 0 {
					t.Fatalf("bad test: %q not in input", tt.at)
				}
			}
			if pe.Offset != want {
				t.Errorf("Offset = %d, want %d (message %q)", pe.Offset, want, pe.Message)
			}
			if !strings.Contains(pe.Message, tt.msg) {
				t.Errorf("Message = %q, want it to contain %q", pe.Message, tt.msg)
			}
			if suffix := fmt.Sprintf(" at offset %d", pe.Offset); !strings.HasSuffix(pe.Message, suffix) {
				t.Errorf("Message = %q, want suffix %q", pe.Message, suffix)
			}
			if err.Error() != pe.Message {
				t.Errorf("Error() = %q, want the Message %q", err.Error(), pe.Message)
			}
		})
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tt := range validCases {
		t.Run(tt.name, func(t *testing.T) {
			e1, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			s1 := e1.String()
			e2, err := Parse(s1)
			if err != nil {
				t.Fatalf("Parse(String()) failed: %v\ncanonical: %s", err, s1)
			}
			if s2 := e2.String(); s2 != s1 {
				t.Errorf("String not stable\nfirst:  %s\nsecond: %s", s1, s2)
			}
			if !reflect.DeepEqual(e1, e2) {
				t.Errorf("trees differ after round trip of %s", s1)
			}
		})
	}
}

func TestTreeShape(t *testing.T) {
	a := &Expr{Kind: KindActionMatches, Match: "a"}
	b := &Expr{Kind: KindActionMatches, Match: "b"}
	c := &Expr{Kind: KindSubOperationMatches, Match: "c"}
	tests := []struct {
		name string
		in   string
		want *Expr
	}{
		{"AND binds tighter than OR", "ActionMatches{'a'} OR ActionMatches{'b'} AND SubOperationMatches{'c'}",
			&Expr{Kind: KindOr, Left: a, Right: &Expr{Kind: KindAnd, Left: b, Right: c}}},
		{"AND is left-associative", "ActionMatches{'a'} && ActionMatches{'b'} && SubOperationMatches{'c'}",
			&Expr{Kind: KindAnd, Left: &Expr{Kind: KindAnd, Left: a, Right: b}, Right: c}},
		{"NOT binds tighter than AND", "NOT ActionMatches{'a'} AND ActionMatches{'b'}",
			&Expr{Kind: KindAnd, Left: &Expr{Kind: KindNot, X: a}, Right: b}},
		{"comparison", "@Request[r:Id] ForAllOfAllValues:GuidEquals {'2a2b9908-6ea1-4ae2-8e65-a410df84e7d1', 2a2b9908-6ea1-4ae2-8e65-a410df84e7d1}",
			&Expr{Kind: KindComparison, Comparison: &Comparison{
				Left:       Attribute{Source: SourceRequest, Name: "r:Id"},
				Quantifier: ForAllOfAllValues,
				Operator:   GuidEquals,
				Values: []Value{
					{Text: "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1", Quoted: true},
					{Text: "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1"},
				},
				List: true,
			}}},
		{"cross-attribute comparison", "@Principal[p:x] StringEquals @Environment[UtcNow]",
			&Expr{Kind: KindComparison, Comparison: &Comparison{
				Left:      Attribute{Source: SourcePrincipal, Name: "p:x"},
				Operator:  StringEquals,
				RightAttr: &Attribute{Source: SourceEnvironment, Name: "UtcNow"},
			}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

// TestEveryOperator checks each operator, with and without each
// quantifier, against a value of its type, with the operator and source
// in canonical and in lower case.
func TestEveryOperator(t *testing.T) {
	sample := map[ValueType]string{
		TypeString:   "'x'",
		TypeNumber:   "7",
		TypeBool:     "true",
		TypeDateTime: "'2023-05-01T13:00:00.0Z'",
		TypeGuid:     "2a2b9908-6ea1-4ae2-8e65-a410df84e7d1",
	}
	for o := StringEquals; o < operatorEnd; o++ {
		for q := NoQuantifier; q <= ForAllOfAllValues; q++ {
			op := o.String()
			if q != NoQuantifier {
				op = q.String() + ":" + op
			}
			t.Run(op, func(t *testing.T) {
				want := "@Resource[a:b] " + op + " " + sample[o.Type()]
				lower := "@resource[a:b] " + strings.ToLower(op) + " " + sample[o.Type()]
				for _, in := range []string{want, lower} {
					e, err := Parse(in)
					if err != nil {
						t.Fatalf("Parse(%q): %v", in, err)
					}
					c := e.Comparison
					if e.Kind != KindComparison || c.Operator != o || c.Quantifier != q {
						t.Fatalf("Parse(%q) = %+v", in, c)
					}
					if got := e.String(); got != want {
						t.Errorf("String() = %q, want %q", got, want)
					}
				}
			})
		}
	}
}

func TestErrorMessageExample(t *testing.T) {
	in := "@Resource[Microsoft.Storage/storageAccounts/blobServices/containers:name] 'x'"
	_, err := Parse(in)
	want := fmt.Sprintf("expected operator after attribute @Resource[Microsoft.Storage/storageAccounts/blobServices/c...], found string 'x' at offset %d", strings.Index(in, "'x'"))
	if err == nil || err.Error() != want {
		t.Fatalf("Parse error = %v\nwant %s", err, want)
	}
}

func TestHugeList(t *testing.T) {
	var b strings.Builder
	b.WriteString("@Resource[a:b] ForAnyOfAnyValues:NumericEquals {1")
	for b.Len() < MaxLength-10 {
		b.WriteString(",1")
	}
	b.WriteString("}")
	e, err := Parse(b.String())
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if n := len(e.Comparison.Values); n < 4000 {
		t.Errorf("got %d values, want over 4000", n)
	}
	// The same list without its closing brace is an error at the end.
	_, err = Parse(strings.TrimSuffix(b.String(), "}"))
	var pe *Error
	if !errors.As(err, &pe) || pe.Offset != b.Len()-1 {
		t.Errorf("unclosed huge list: err = %v", err)
	}
}

func TestNilAndInvalidPrinting(t *testing.T) {
	var e *Expr
	if got := e.String(); got != "<nil>" {
		t.Errorf("nil Expr String() = %q", got)
	}
	var pe *Error
	if got := pe.Error(); got != "<nil>" {
		t.Errorf("nil Error Error() = %q", got)
	}
	if got := (&Expr{}).String(); got != "<invalid>" {
		t.Errorf("zero Expr String() = %q", got)
	}
	if got := Operator(0).String(); got != "Operator(?)" {
		t.Errorf("Operator(0).String() = %q", got)
	}
	if got := Source(99).String(); got != "Source(?)" {
		t.Errorf("Source(99).String() = %q", got)
	}
}
