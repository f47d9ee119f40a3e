package understudytest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A fenced block of a Markdown page.
type docBlock struct {
	page string // relative to the repository, e.g. docs/tls.md
	line int    // of the opening fence
	lang string // the fence's info string
	text string
}

func (b docBlock) String() string { return fmt.Sprintf("%s:%d (%s)", b.page, b.line, b.lang) }

// docBlocks reads the fenced blocks of the README and of every page of docs/.
func docBlocks(t *testing.T) []docBlock {
	t.Helper()
	pages, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []docBlock
	for _, page := range append([]string{"../README.md"}, pages...) {
		f, err := os.Open(page)
		if err != nil {
			t.Fatal(err)
		}
		var cur *docBlock
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			switch {
			case cur == nil && strings.HasPrefix(line, "```"):
				cur = &docBlock{page: strings.TrimPrefix(page, "../"), line: n, lang: strings.TrimSpace(line[3:])}
			case cur != nil && line == "```":
				blocks = append(blocks, *cur)
				cur = nil
			case cur != nil:
				cur.text += line + "\n"
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if cur != nil {
			t.Errorf("%s: the block opened at line %d is never closed", page, cur.line)
		}
	}
	return blocks
}

// TestDocBlocks holds every block of the README and of docs/ to what it shows:
//
//   - go: a Go file without its package clause, so each names its imports. The pages' Go
//     blocks compile together as one package (in understudytc's module when they import
//     it). Those of the README and of docs/sdks.md, which say they run, are also test files
//     of this package, where they do.
//   - js: a piece of testdata/node/recipes.mjs, which TestNodeRecipes runs.
//   - yaml and json: documents that parse.
//   - sh and bash: run by .ci/doc-blocks.sh (make readme) against a server; text: output,
//     trees and the like, not run.
//
// Any other label, or none, is an error: a block says what it is.
func TestDocBlocks(t *testing.T) {
	tests, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	testFiles := map[string]bool{} // their text after the package clause
	for _, f := range tests {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, body, _ := strings.Cut(string(b), "package understudytest_test\n\n")
		testFiles[body] = true
	}
	recipes, err := os.ReadFile("testdata/node/recipes.mjs")
	if err != nil {
		t.Fatal(err)
	}

	var goBlocks []docBlock
	count := map[string]int{}
	for _, b := range docBlocks(t) {
		count[b.lang]++
		switch b.lang {
		case "go":
			goBlocks = append(goBlocks, b)
			if (b.page == "README.md" || b.page == "docs/sdks.md") && !testFiles[b.text] {
				t.Errorf("%s is none of understudytest's test files (without their package clause), where it would run", b)
			}
		case "js":
			if !strings.Contains(string(recipes), b.text) {
				t.Errorf("%s is no piece of understudytest/testdata/node/recipes.mjs, which TestNodeRecipes runs", b)
			}
		case "yaml":
			dec := yaml.NewDecoder(strings.NewReader(b.text))
			for {
				var doc any
				if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Errorf("%s does not parse: %v", b, err)
					break
				}
			}
		case "json":
			if !json.Valid([]byte(b.text)) {
				t.Errorf("%s is not JSON", b)
			}
		case "sh", "bash", "text":
		default:
			t.Errorf("%s: label the block go, js, sh, bash, yaml, json or text", b)
		}
	}
	compileGoBlocks(t, goBlocks)
	t.Logf("blocks checked: %v", count)
}

// compileGoBlocks builds the pages' Go blocks as one package (one per module), so that a page
// may use what another defines (tls.md the policies of sdks.md). Its files are laid over a
// directory that does not exist (go build -overlay), so nothing is written into the
// repository: <page>_<N>.go is the block of <page> whose fence is on line N.
func compileGoBlocks(t *testing.T, blocks []docBlock) {
	if len(blocks) == 0 {
		t.Error("no page has a Go block")
		return
	}
	tmp := t.TempDir()
	overlays := map[string]map[string]string{} // module root -> virtual file -> real file
	for _, b := range blocks {
		module := ".."
		if strings.Contains(b.text, `"github.com/understudy-dev/understudy/understudytc"`) {
			module = "../understudytc"
		}
		root, err := filepath.Abs(module)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("%s_%d.go", strings.NewReplacer("/", "_", ".", "_").Replace(b.page), b.line)
		real := filepath.Join(tmp, name)
		if err := os.WriteFile(real, []byte("package docblocks\n\n"+b.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if overlays[module] == nil {
			overlays[module] = map[string]string{}
		}
		overlays[module][filepath.Join(root, "docblocks", name)] = real
	}
	for module, files := range overlays {
		overlay, err := json.Marshal(map[string]any{"Replace": files})
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(tmp, "overlay-"+filepath.Base(module)+".json")
		if err := os.WriteFile(file, overlay, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("go", "build", "-overlay", file, "./docblocks")
		cmd.Dir = module
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("the Go blocks do not compile (<page>_<N>.go is the block of <page> whose fence is on line N):\n%s", out)
		}
	}
}

// TestDocVersions: where the README and docs/sdks.md name a client package, they name its
// version too, and it is the one the tests run (go.mod's requirement, testdata/node/package.json's
// dependency), and the README's Go version is go.mod's.
func TestDocVersions(t *testing.T) {
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	versions := map[string]string{} // the name the pages use -> its version
	for name, module := range map[string]string{
		"google.golang.org/api":       "google.golang.org/api",
		"armauthorization/v2":         "github.com/Azure/azure-sdk-for-go/sdk/resourcemanager/authorization/armauthorization/v2",
		"azcore":                      "github.com/Azure/azure-sdk-for-go/sdk/azcore",
		"stripe-go/v85":               "github.com/stripe/stripe-go/v85",
		"cloud.google.com/go/compute": "cloud.google.com/go/compute",
	} {
		m := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(module) + ` (v\S+)`).FindSubmatch(gomod)
		if m == nil {
			t.Fatalf("go.mod requires no %s", module)
		}
		versions[name] = string(m[1])
	}
	pkg, err := os.ReadFile("testdata/node/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var node struct{ Dependencies map[string]string }
	if err := json.Unmarshal(pkg, &node); err != nil {
		t.Fatal(err)
	}
	for name, v := range node.Dependencies {
		versions[name] = v
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)

	for _, page := range []string{"../README.md", "../docs/sdks.md"} {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range versions {
			stated := regexp.MustCompile("`"+regexp.QuoteMeta(name)+"`[^`\n]*?(v?[0-9]+\\.[0-9]+\\.[0-9]+)").FindAllSubmatch(b, -1)
			if len(stated) == 0 && bytes.Contains(b, []byte("`"+name+"`")) {
				t.Errorf("%s names %s but not its version (tested: %s)", page, name, want)
			}
			for _, m := range stated {
				if got := strings.TrimPrefix(string(m[1]), "v"); got != strings.TrimPrefix(want, "v") {
					t.Errorf("%s: %s %s, but the tests run %s", page, name, m[1], want)
				}
			}
		}
	}
	readme, _ := os.ReadFile("../README.md")
	if goVersion == nil || !regexp.MustCompile(`\| Go \| `+regexp.QuoteMeta(string(goVersion[1]))+`\b`).Match(readme) {
		t.Errorf("the README's versions table does not give go.mod's Go version (%s)", goVersion)
	}
}

// TestFuzzTargets: `make fuzz` runs every fuzz target of the module, and
// docs/architecture.md counts them right.
func TestFuzzTargets(t *testing.T) {
	makefile, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	run := map[string]bool{} // "name ./dir/" of each target make fuzz runs
	for _, m := range regexp.MustCompile(`-fuzz '\^(Fuzz\w+)\$\$'.* (\./\S*)`).FindAllSubmatch(makefile, -1) {
		run[string(m[1])+" "+string(m[2])] = true
	}
	decl := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(`)
	var targets []string
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range decl.FindAllSubmatch(src, -1) {
			targets = append(targets, string(m[1])+" ./"+filepath.ToSlash(filepath.Dir(strings.TrimPrefix(path, "../")))+"/")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range targets {
		if !run[target] {
			t.Errorf("make fuzz does not run %s", target)
		}
	}
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
		"thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"}
	arch, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) >= len(words) || !bytes.Contains(arch, []byte("each of the "+words[len(targets)]+" fuzz targets")) {
		t.Errorf("docs/architecture.md does not say make fuzz runs each of the %d fuzz targets", len(targets))
	}
}
