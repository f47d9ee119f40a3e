//go:build tools

// Package tools pins the code generator used by `go generate ./...`, so that every
// machine generates gen/ with the very same oapi-codegen version recorded in go.mod.
package tools

import (
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
)
