package compute

import (
	"fmt"
	"regexp"
)

// nameRegex is the real service's name rule, quoted in its messages.
const nameRegex = `(?:[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?)`

var validName = regexp.MustCompile(`^` + nameRegex + `$`)

// checkName applies the name rule to a resource name in a request body.
func checkName(name string) error {
	if name == "" {
		return &Error{Status: 400, Reason: "required", Message: "Required field 'resource.name' not specified", Location: "resource.name"}
	}
	if !validName.MatchString(name) {
		return invalidField("resource.name", fmt.Sprintf("Invalid value for field 'resource.name': '%s'. Must be a match of regex '%s'", name, nameRegex))
	}
	return nil
}
