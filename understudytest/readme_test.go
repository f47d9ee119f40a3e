package understudytest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMEGoBlocks: every Go block of the README is a piece of one of this package's test
// files, where it compiles and runs (the recipes and the example test), so that the README
// cannot show code that does not build.
func TestREADMEGoBlocks(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, string(b))
	}
	blocks := 0
	rest := string(readme)
	for {
		var block string
		var ok bool
		if _, rest, ok = strings.Cut(rest, "```go\n"); !ok {
			break
		}
		block, rest, _ = strings.Cut(rest, "```")
		blocks++
		found := false
		for _, src := range sources {
			if strings.Contains(src, block) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("this README Go block is in none of understudytest's test files:\n%s", block)
		}
	}
	if blocks == 0 {
		t.Error("the README has no Go block")
	}
}
