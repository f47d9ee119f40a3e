package understudytest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
)

// TestAnOutsideModuleCanUseIt builds a throwaway module outside understudy that imports only
// public packages (client, understudytest, gen/...), as a user's tests would, and runs its
// test: starting a server, driving each API, injecting a fault, advancing the clock and
// reading the journal and metrics. It needs the Go module proxy for the throwaway module's
// own go.sum.
func TestAnOutsideModuleCanUseIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a separate module")
	}
	_, here, _, _ := runtime.Caller(0)
	repo := filepath.Dir(filepath.Dir(here))
	dir := t.TempDir()
	gomod := "module example.com/outside\n\ngo 1.26\n\nrequire github.com/understudy-dev/understudy v0.0.0\n\nreplace github.com/understudy-dev/understudy => " + repo + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(repo, "understudytest", "testdata", "outside", "outside_test.go.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "outside_test.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	// Start from understudy's go.sum so that nothing but the throwaway module is resolved.
	if sum, err := os.ReadFile(filepath.Join(repo, "go.sum")); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
	}
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	run("test", "-count=1", "./...")
}
