package understudytest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestNodeRecipes runs docs/sdks.md's recipes for the vendors' Node SDKs
// (testdata/node/recipes.mjs, with its tests in recipes.test.mjs) and the other tests there
// (clients.test.mjs; azure.test.mjs, compute.test.mjs and stripe.test.mjs, every operation of
// each API through its vendor's SDK) against a server over HTTPS, as the Azure SDK needs. The
// packages are pinned by testdata/node/package-lock.json and installed with npm ci, from the
// npm registry, when node_modules is missing or older than the lock file. Without node or npm
// it skips, and under CI=true it fails instead.
func TestNodeRecipes(t *testing.T) {
	if testing.Short() {
		t.Skip("installs npm packages")
	}
	node, nerr := exec.LookPath("node")
	npm, perr := exec.LookPath("npm")
	if nerr != nil || perr != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the Node recipes need node and npm: %v, %v", nerr, perr)
		}
		t.Skipf("the Node recipes need node and npm: %v, %v", nerr, perr)
	}
	dir := filepath.Join("testdata", "node")
	if stale(filepath.Join(dir, "node_modules", ".package-lock.json"), filepath.Join(dir, "package-lock.json")) {
		run(t, dir, nil, npm, "ci", "--no-audit", "--no-fund")
	}

	srv := understudytest.Start(t, understudytest.WithTLS(), understudytest.WithOperationMode("immediate"))
	run(t, dir, []string{"UNDERSTUDY_URL=" + srv.URL, "NODE_EXTRA_CA_CERTS=" + srv.CAFile}, node, "--test")
}

// stale says whether target is missing or older than source.
func stale(target, source string) bool {
	ti, err := os.Stat(target)
	if err != nil {
		return true
	}
	si, err := os.Stat(source)
	return err != nil || ti.ModTime().Before(si.ModTime())
}

// run runs a command in dir with env added, failing the test with its output.
func run(t *testing.T, dir string, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
