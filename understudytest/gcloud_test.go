package understudytest_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/understudy-dev/understudy/understudytest"
)

// TestGoogleCloudCLI drives the installed Google Cloud CLI (gcloud, Debian's
// google-cloud-cli) against a server as docs/compute.md shows it: an endpoint override for
// the compute API, an access-token file and a throwaway configuration directory. It covers
// what the CLI does differently from the SDKs: URL-safe fingerprints written back, nulls in
// merge patches, batch requests, the aggregated list, and its own operation polling. The
// machines CI runs on come with gcloud (no reachable apt source offers google-cloud-cli), so
// under CI=true a missing gcloud fails the test, as it fails .ci/doc-blocks.sh; elsewhere it
// skips.
func TestGoogleCloudCLI(t *testing.T) {
	g := startGcloud(t)
	run, describe := g.run, g.object

	for _, name := range []string{"fr-a", "fr-b", "fr-c"} {
		run("compute", "forwarding-rules", "create", name, "--global", "--target-http-proxy=web-proxy", "--ports=80", "--load-balancing-scheme=EXTERNAL")
	}
	// Without --global: forwardingRules.aggregatedList.
	if out := run("compute", "forwarding-rules", "list", "--format=value(name)"); strings.Fields(out) == nil || !slices.Equal(strings.Fields(out), []string{"fr-a", "fr-b", "fr-c"}) {
		t.Errorf("forwarding-rules list: %q", out)
	}
	// Each relabel writes the fingerprint back URL-safe. Fingerprints follow from the labels
	// alone, so these five are the same every run, and the 2nd, 3rd and 5th are sent with
	// '-' or '_' (-PKZklhMB88=, T_1hMqXFwtk=, vHXf-_C2-Gs=), which were refused.
	for i := range 5 {
		run("compute", "forwarding-rules", "update", "fr-a", "--global", "--update-labels=round="+string(rune('a'+i)))
	}
	if labels, _ := describe("compute", "forwarding-rules", "describe", "fr-a", "--global")["labels"].(map[string]any); labels["round"] != "e" {
		t.Errorf("labels after five updates: %v", labels)
	}
	// Nulls in merge patches: the migration cleared, an export imported back unchanged.
	run("compute", "forwarding-rules", "update", "fr-b", "--global", "--external-managed-backend-bucket-migration-state=PREPARE")
	run("compute", "forwarding-rules", "update", "fr-b", "--global", "--clear-external-managed-backend-bucket-migration-state")
	if r := describe("compute", "forwarding-rules", "describe", "fr-b", "--global"); r["externalManagedBackendBucketMigrationState"] != nil {
		t.Errorf("migration state after clearing: %v", r["externalManagedBackendBucketMigrationState"])
	}
	export := filepath.Join(g.config, "fr-b.yaml")
	run("beta", "compute", "forwarding-rules", "export", "fr-b", "--global", "--destination="+export)
	run("beta", "compute", "forwarding-rules", "import", "fr-b", "--global", "--source="+export)

	// Interconnects: labels through patch, and the groups that hold one.
	run("compute", "interconnects", "create", "ic-a", "--customer-name=Example", "--interconnect-type=DEDICATED",
		"--link-type=LINK_TYPE_ETHERNET_10G_LR", "--requested-link-count=1", "--location=iad-zone1-1")
	run("compute", "interconnects", "create", "ic-b", "--customer-name=Example", "--interconnect-type=DEDICATED",
		"--link-type=LINK_TYPE_ETHERNET_10G_LR", "--requested-link-count=1", "--location=iad-zone2-1")
	for i := range 5 { // the same fingerprints as the rule's (an interconnect starts without labels too)
		run("beta", "compute", "interconnects", "update", "ic-a", "--update-labels=round="+string(rune('a'+i)))
	}
	run("compute", "interconnects", "groups", "create", "grp", "--intended-topology-capability=NO_SLA", "--interconnects=ic-a")
	run("compute", "interconnects", "groups", "add-members", "grp", "--interconnects=ic-b")
	for _, ic := range []string{"ic-a", "ic-b"} {
		groups, _ := describe("compute", "interconnects", "describe", ic)["interconnectGroups"].([]any)
		if len(groups) != 1 || !strings.HasSuffix(groups[0].(string), "/global/interconnectGroups/grp") {
			t.Errorf("%s's interconnectGroups: %v", ic, groups)
		}
	}
	if out := run("compute", "interconnects", "list", "--format=value(name,interconnectGroups.basename())"); strings.Count(out, "grp") != 2 {
		t.Errorf("interconnects list: %q", out)
	}

	// Several resources in one command: one batch request.
	run("compute", "forwarding-rules", "delete", "fr-a", "fr-b", "--global")
	if out := run("compute", "forwarding-rules", "list", "--global", "--format=value(name)"); strings.TrimSpace(out) != "fr-c" {
		t.Errorf("after deleting two in one batch: %q", out)
	}
	if out := run("compute", "operations", "list", "--global", "--filter=operationType=delete", "--format=value(status)"); strings.Count(out, "DONE") != 2 {
		t.Errorf("the batch's delete operations: %q", out)
	}
}

// gcloud runs the installed Google Cloud CLI against a server of its own, as docs/compute.md
// shows: an endpoint override for the compute API, an access-token file and a throwaway
// configuration directory, so that nothing of the CLI's own configuration is used or
// changed.
type gcloud struct {
	t      *testing.T
	path   string
	env    []string
	config string
}

// startGcloud starts a server whose operations finish at once and points gcloud at it. It
// skips under -short, and where gcloud is not installed, except under CI=true (CI's
// machines come with it, no reachable apt source offers google-cloud-cli), where it fails
// as .ci/doc-blocks.sh does.
func startGcloud(t *testing.T) *gcloud {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the Google Cloud CLI, about a second a command")
	}
	path, err := exec.LookPath("gcloud")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("gcloud is not installed (%v); CI's machines come with the Google Cloud CLI", err)
		}
		t.Skipf("gcloud is not installed (%v)", err)
	}
	srv := understudytest.Start(t, understudytest.WithOperationMode("immediate"))
	config := t.TempDir()
	token := filepath.Join(config, "token")
	if err := os.WriteFile(token, []byte("any-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CLOUDSDK_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"CLOUDSDK_API_ENDPOINT_OVERRIDES_COMPUTE="+srv.URL+"/compute/v1/",
		"CLOUDSDK_CONFIG="+config, "CLOUDSDK_CORE_PROJECT=my-project",
		"CLOUDSDK_AUTH_ACCESS_TOKEN_FILE="+token,
		"CLOUDSDK_CORE_DISABLE_PROMPTS=1", "CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK=1")
	return &gcloud{t: t, path: path, env: env, config: config}
}

// exec runs gcloud with args and returns its standard output and error.
func (g *gcloud) exec(args ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(g.path, args...)
	cmd.Env, cmd.Dir = g.env, g.config
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// run runs a command that must succeed and returns all it wrote.
func (g *gcloud) run(args ...string) string {
	g.t.Helper()
	out, errOut, err := g.exec(args...)
	if err != nil {
		g.t.Fatalf("gcloud %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return out + errOut
}

// fail runs a command that must fail and returns its error output.
func (g *gcloud) fail(args ...string) string {
	g.t.Helper()
	out, errOut, err := g.exec(args...)
	if err == nil {
		g.t.Fatalf("gcloud %s succeeded:\n%s%s", strings.Join(args, " "), out, errOut)
	}
	return errOut
}

// decode runs a command that must succeed with --format=json and decodes its output.
func (g *gcloud) decode(v any, args ...string) {
	g.t.Helper()
	out, errOut, err := g.exec(append(args, "--format=json", "--verbosity=none")...)
	if err != nil {
		g.t.Fatalf("gcloud %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		g.t.Fatalf("gcloud %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// object is what a command that prints one resource prints, as JSON.
func (g *gcloud) object(args ...string) map[string]any {
	g.t.Helper()
	var m map[string]any
	g.decode(&m, args...)
	return m
}

// list is what a command that prints a list prints, as JSON.
func (g *gcloud) list(args ...string) []map[string]any {
	g.t.Helper()
	var l []map[string]any
	g.decode(&l, args...)
	return l
}
