// Package condition parses and validates Azure role-assignment conditions
// (the attribute-based access control "conditions" language, version 2.0)
// so that the emulator can accept or reject properties.condition on a role
// assignment the way the real service does.
//
// Parse turns a condition into an *Expr syntax tree or returns an *Error
// that carries the byte offset of the problem and a message saying what
// was expected and what was found. Expr.String prints a canonical form that
// parses back to an equal tree.
//
// # Grammar
//
// Keywords, operator names, attribute sources and boolean values are
// matched case-insensitively. Spaces, tabs, CR and LF may appear between
// any two tokens.
//
//	condition   = or-expr .
//	or-expr     = and-expr { ( "OR" | "||" ) and-expr } .
//	and-expr    = unary { ( "AND" | "&&" ) unary } .
//	unary       = ( "NOT" | "!" ) unary | primary .
//	primary     = "(" or-expr ")" | match | comparison .
//	match       = ( "ActionMatches" | "SubOperationMatches" ) "{" string "}" .
//	comparison  = attribute operator operand .
//	attribute   = "@" source "[" name "]" .
//	source      = "Resource" | "Request" | "Principal" | "Environment" .
//	name        = any bytes except "]", not all whitespace .
//	operator    = [ quantifier ":" ] basic-op .
//	quantifier  = "ForAnyOfAnyValues" | "ForAllOfAnyValues"
//	            | "ForAnyOfAllValues" | "ForAllOfAllValues" .
//	operand     = attribute | value | "{" value { "," value } "}" .
//	value       = string | number | bool | guid .
//	string      = "'" any bytes except "'" "'" .
//	number      = [ "+" | "-" ] digits [ "." digits ] .
//	bool        = "true" | "false" .
//	guid        = 8-4-4-4-12 hexadecimal digits, quoted or not .
//
// NOT binds tightest, then AND, then OR; AND and OR are left-associative.
// The basic operators are the String*, Numeric*, Bool*, DateTime* and
// Guid* families listed as Operator constants. The value (or every element
// of a value list) must suit the operator: String operators take quoted
// strings, Numeric operators unquoted decimal numbers, Bool operators
// unquoted true or false, DateTime operators a quoted RFC 3339 date-time
// such as '2023-05-01T13:00:00.0Z' ("T" and "Z" in either case), and
// Guid operators a GUID, quoted or not. Any operator may instead compare
// against another attribute.
//
// A quoted string runs to the next single quote; there is no escape
// sequence, so a value cannot contain a single quote. Backslashes are kept
// as written (StringLike uses \* and \? to escape its wildcards).
//
// # Limits
//
// Input longer than MaxLength bytes is rejected, as the service rejects
// conditions over 8 KiB. Parentheses and NOT may nest at most MaxDepth
// levels; "!(" or "NOT (" counts as one level. Empty or whitespace-only
// input is an error. Parse never panics, whatever the input.
//
// # Differences from the real service
//
// This package checks syntax and value types only. It does not know which
// attributes exist, which actions and suboperations are real, whether an
// attribute supports the operator or a value list, or whether the attribute
// names match the role's data actions. It accepts AND and OR mixed without
// parentheses (using the usual precedence) where the service asks for
// explicit grouping; it accepts numbers with a sign and a fraction where
// the service documents integers only; and it accepts only the operators
// listed above (not, for example, Exists or the IP address operators).
package condition
