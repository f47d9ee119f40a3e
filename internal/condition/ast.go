package condition

import "strings"

// ExprKind says what an Expr node is and which of its fields are set.
type ExprKind int

// The kinds of Expr node.
const (
	// KindAnd is Left AND Right.
	KindAnd ExprKind = iota + 1
	// KindOr is Left OR Right.
	KindOr
	// KindNot is NOT X.
	KindNot
	// KindComparison is an attribute comparison held in Comparison.
	KindComparison
	// KindActionMatches is ActionMatches{'Match'}.
	KindActionMatches
	// KindSubOperationMatches is SubOperationMatches{'Match'}.
	KindSubOperationMatches
)

// Expr is a node of a parsed condition. Kind says which fields are used:
// Left and Right for KindAnd and KindOr, X for KindNot, Comparison for
// KindComparison, and Match for KindActionMatches and
// KindSubOperationMatches. Nodes carry no source positions, so trees
// parsed from differently formatted text compare equal with
// reflect.DeepEqual.
type Expr struct {
	Kind        ExprKind
	Left, Right *Expr
	X           *Expr
	Comparison  *Comparison
	Match       string
}

// Source is where an attribute comes from: the @Resource, @Request,
// @Principal or @Environment prefix.
type Source int

// The attribute sources.
const (
	SourceResource Source = iota + 1
	SourceRequest
	SourcePrincipal
	SourceEnvironment
)

var sourceNames = [...]string{
	SourceResource:    "Resource",
	SourceRequest:     "Request",
	SourcePrincipal:   "Principal",
	SourceEnvironment: "Environment",
}

// String returns the source's name without the "@", e.g. "Resource".
func (s Source) String() string {
	if s <= 0 || int(s) >= len(sourceNames) {
		return "Source(?)"
	}
	return sourceNames[s]
}

// Attribute is an attribute reference such as
// @Resource[Microsoft.Storage/storageAccounts/blobServices/containers:name].
// Name is the text between the brackets, kept as written.
type Attribute struct {
	Source Source
	Name   string
}

// String returns the attribute as written in a condition.
func (a Attribute) String() string {
	return "@" + a.Source.String() + "[" + a.Name + "]"
}

// Quantifier is the cross-product prefix of an operator, as in
// ForAnyOfAnyValues:StringEquals. NoQuantifier means there is none.
type Quantifier int

// The quantifiers.
const (
	NoQuantifier Quantifier = iota
	ForAnyOfAnyValues
	ForAllOfAnyValues
	ForAnyOfAllValues
	ForAllOfAllValues
)

var quantifierNames = [...]string{
	NoQuantifier:      "",
	ForAnyOfAnyValues: "ForAnyOfAnyValues",
	ForAllOfAnyValues: "ForAllOfAnyValues",
	ForAnyOfAllValues: "ForAnyOfAllValues",
	ForAllOfAllValues: "ForAllOfAllValues",
}

// String returns the quantifier's documented name, or "" for NoQuantifier.
func (q Quantifier) String() string {
	if q < 0 || int(q) >= len(quantifierNames) {
		return "Quantifier(?)"
	}
	return quantifierNames[q]
}

// ValueType is the kind of value an operator compares.
type ValueType int

// The value types.
const (
	TypeString ValueType = iota + 1
	TypeNumber
	TypeBool
	TypeDateTime
	TypeGuid
)

// Operator is a basic comparison operator such as StringEquals.
type Operator int

// The basic operators.
const (
	StringEquals Operator = iota + 1
	StringEqualsIgnoreCase
	StringNotEquals
	StringNotEqualsIgnoreCase
	StringLike
	StringLikeIgnoreCase
	StringNotLike
	StringNotLikeIgnoreCase
	StringStartsWith
	StringStartsWithIgnoreCase
	StringNotStartsWith
	StringNotStartsWithIgnoreCase
	NumericEquals
	NumericNotEquals
	NumericGreaterThan
	NumericGreaterThanEquals
	NumericLessThan
	NumericLessThanEquals
	BoolEquals
	BoolNotEquals
	DateTimeEquals
	DateTimeNotEquals
	DateTimeGreaterThan
	DateTimeGreaterThanEquals
	DateTimeLessThan
	DateTimeLessThanEquals
	GuidEquals
	GuidNotEquals
	operatorEnd
)

var operatorNames = [...]string{
	StringEquals:                  "StringEquals",
	StringEqualsIgnoreCase:        "StringEqualsIgnoreCase",
	StringNotEquals:               "StringNotEquals",
	StringNotEqualsIgnoreCase:     "StringNotEqualsIgnoreCase",
	StringLike:                    "StringLike",
	StringLikeIgnoreCase:          "StringLikeIgnoreCase",
	StringNotLike:                 "StringNotLike",
	StringNotLikeIgnoreCase:       "StringNotLikeIgnoreCase",
	StringStartsWith:              "StringStartsWith",
	StringStartsWithIgnoreCase:    "StringStartsWithIgnoreCase",
	StringNotStartsWith:           "StringNotStartsWith",
	StringNotStartsWithIgnoreCase: "StringNotStartsWithIgnoreCase",
	NumericEquals:                 "NumericEquals",
	NumericNotEquals:              "NumericNotEquals",
	NumericGreaterThan:            "NumericGreaterThan",
	NumericGreaterThanEquals:      "NumericGreaterThanEquals",
	NumericLessThan:               "NumericLessThan",
	NumericLessThanEquals:         "NumericLessThanEquals",
	BoolEquals:                    "BoolEquals",
	BoolNotEquals:                 "BoolNotEquals",
	DateTimeEquals:                "DateTimeEquals",
	DateTimeNotEquals:             "DateTimeNotEquals",
	DateTimeGreaterThan:           "DateTimeGreaterThan",
	DateTimeGreaterThanEquals:     "DateTimeGreaterThanEquals",
	DateTimeLessThan:              "DateTimeLessThan",
	DateTimeLessThanEquals:        "DateTimeLessThanEquals",
	GuidEquals:                    "GuidEquals",
	GuidNotEquals:                 "GuidNotEquals",
}

// String returns the operator's documented name, e.g. "StringEquals".
func (o Operator) String() string {
	if o <= 0 || o >= operatorEnd {
		return "Operator(?)"
	}
	return operatorNames[o]
}

// Type returns the type of value the operator compares, or 0 for an
// invalid Operator.
func (o Operator) Type() ValueType {
	switch {
	case o >= StringEquals && o <= StringNotStartsWithIgnoreCase:
		return TypeString
	case o >= NumericEquals && o <= NumericLessThanEquals:
		return TypeNumber
	case o == BoolEquals || o == BoolNotEquals:
		return TypeBool
	case o >= DateTimeEquals && o <= DateTimeLessThanEquals:
		return TypeDateTime
	case o == GuidEquals || o == GuidNotEquals:
		return TypeGuid
	}
	return 0
}

// Comparison is "Left Operator Right". The right-hand side is either
// another attribute (RightAttr) or one or more literal values (Values);
// List records that the values were written as a {...} list, which may
// hold a single value.
type Comparison struct {
	Left       Attribute
	Quantifier Quantifier
	Operator   Operator
	RightAttr  *Attribute
	Values     []Value
	List       bool
}

// Value is a literal operand. Quoted values were written in single quotes
// and Text holds what was between them; unquoted values (numbers,
// booleans, bare GUIDs) hold their text as written, except that booleans
// are lower-cased.
type Value struct {
	Text   string
	Quoted bool
}

// String returns the value as written in a condition.
func (v Value) String() string {
	if v.Quoted {
		return "'" + v.Text + "'"
	}
	return v.Text
}

// String prints the expression in canonical form: documented casing for
// keywords and operators, AND and OR spelled out, NOT written as "!(...)",
// one space between tokens, and parentheses only where the tree needs
// them. Parsing the result gives an equal tree, provided it still fits in
// MaxLength (the canonical form can be slightly longer than the input, for
// example when the input used "&&" without spaces).
func (e *Expr) String() string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

// precedence returns the binding strength of e's top-level operator.
func precedence(e *Expr) int {
	switch e.Kind {
	case KindOr:
		return 1
	case KindAnd:
		return 2
	}
	return 3
}

func writeExpr(b *strings.Builder, e *Expr) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	switch e.Kind {
	case KindAnd, KindOr:
		p := precedence(e)
		writeOperand(b, e.Left, precedence(e.Left) < p)
		if e.Kind == KindAnd {
			b.WriteString(" AND ")
		} else {
			b.WriteString(" OR ")
		}
		writeOperand(b, e.Right, precedence(e.Right) <= p)
	case KindNot:
		b.WriteString("!(")
		writeExpr(b, e.X)
		b.WriteString(")")
	case KindComparison:
		writeComparison(b, e.Comparison)
	case KindActionMatches:
		b.WriteString("ActionMatches{'" + e.Match + "'}")
	case KindSubOperationMatches:
		b.WriteString("SubOperationMatches{'" + e.Match + "'}")
	default:
		b.WriteString("<invalid>")
	}
}

func writeOperand(b *strings.Builder, e *Expr, paren bool) {
	if e == nil {
		b.WriteString("<nil>")
		return
	}
	if paren {
		b.WriteString("(")
	}
	writeExpr(b, e)
	if paren {
		b.WriteString(")")
	}
}

func writeComparison(b *strings.Builder, c *Comparison) {
	if c == nil {
		b.WriteString("<nil>")
		return
	}
	b.WriteString(c.Left.String())
	b.WriteString(" ")
	if c.Quantifier != NoQuantifier {
		b.WriteString(c.Quantifier.String())
		b.WriteString(":")
	}
	b.WriteString(c.Operator.String())
	b.WriteString(" ")
	switch {
	case c.RightAttr != nil:
		b.WriteString(c.RightAttr.String())
	case c.List:
		b.WriteString("{")
		for i, v := range c.Values {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(v.String())
		}
		b.WriteString("}")
	case len(c.Values) > 0:
		b.WriteString(c.Values[0].String())
	}
}
