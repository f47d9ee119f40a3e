package compute_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"
	compute "google.golang.org/api/compute/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/understudy-dev/understudy/internal/operations"
	"github.com/understudy-dev/understudy/server"
	"github.com/understudy-dev/understudy/understudytest"
)

// These tests drive the compute API with the vendor's own generated Go client
// (google.golang.org/api/compute/v1), pointed at understudy with an endpoint override.

const (
	vendorProject = "vendor-proj" // a project id of the real shape
	vendorEmail   = "dev@example.com"
	vendorTarget  = "https://www.googleapis.com/compute/v1/projects/vendor-proj/global/targetHttpsProxies/proxy-web"
	// vendorEmptyFingerprint is the label fingerprint of a resource that never had labels.
	vendorEmptyFingerprint = "42WmSpB8rSM="
)

var vendorOpName = regexp.MustCompile(`^operation-\d+-[0-9a-f]{13}-[0-9a-f]{8}-[0-9a-f]{8}$`)

// vendorToken is a static unsigned JWT whose payload carries the email claim.
func vendorToken(email string) string {
	enc := base64.RawURLEncoding
	header := enc.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`))
	payload := enc.EncodeToString([]byte(fmt.Sprintf(`{"iss":"understudy-test","sub":"dev","email":%q}`, email)))
	return header + "." + payload + "."
}

// vendorUUID is a random (version 4) UUID for requestId.
func vendorUUID(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// vendorTransport adds the bearer token and refuses every host but the test server, so
// that nothing can reach the network (no metadata server, no token endpoint, no Google).
type vendorTransport struct {
	t     *testing.T
	host  string
	token string // "" sends no Authorization header
}

func (v vendorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != v.host {
		v.t.Errorf("the client tried to reach %s; only the test server %s is allowed", req.URL.Redacted(), v.host)
		return nil, fmt.Errorf("vendor test: host %s is not allowed", req.URL.Host)
	}
	req = req.Clone(req.Context())
	if v.token != "" {
		req.Header.Set("Authorization", "Bearer "+v.token)
	}
	return http.DefaultTransport.RoundTrip(req)
}

// vendorIsolate makes any credential discovery fail locally instead of reaching out.
func vendorIsolate(t *testing.T) {
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", filepath.Join(t.TempDir(), "no-such-credentials.json"))
	t.Setenv("GCE_METADATA_HOST", "127.0.0.1:1")
	t.Setenv("GCE_METADATA_IP", "127.0.0.1:1")
	t.Setenv("NO_GCE_CHECK", "True")
}

// vendorService is the vendor's client talking to srv only, with a bearer token.
func vendorService(t *testing.T, srv *understudytest.Server, token string) *compute.Service {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: vendorTransport{t: t, host: u.Host, token: token}, Timeout: time.Minute}
	svc, err := compute.NewService(context.Background(),
		option.WithEndpoint(srv.URL+"/compute/v1/"),
		option.WithHTTPClient(hc))
	if err != nil {
		t.Fatalf("compute.NewService: %v", err)
	}
	return svc
}

func vendorStart(t *testing.T, mode operations.Mode) *understudytest.Server {
	t.Helper()
	return understudytest.Start(t, understudytest.WithConfig(func(c *server.Config) {
		c.Compute.Operations.Mode = mode
	}))
}

// vendorAPIError checks that err is a *googleapi.Error with the status and first reason.
func vendorAPIError(t *testing.T, err error, code int, reason string) *googleapi.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want HTTP %d %s", code, reason)
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		t.Fatalf("got error %T %v, want *googleapi.Error", err, err)
	}
	if ge.Code != code {
		t.Errorf("got HTTP %d, want %d (body %s)", ge.Code, code, ge.Body)
	}
	if len(ge.Errors) == 0 {
		t.Fatalf("got no errors[] in the error, want reason %q (body %s)", reason, ge.Body)
	}
	if got := ge.Errors[0].Reason; got != reason {
		t.Errorf("got reason %q, want %q (body %s)", got, reason, ge.Body)
	}
	return ge
}

// vendorErrorItem reads the first errors[] item of the envelope from the raw body (the
// Go client's ErrorItem has no location fields).
func vendorErrorItem(t *testing.T, ge *googleapi.Error) (location, locationType string) {
	t.Helper()
	var env struct {
		Error struct {
			Errors []struct {
				Location     string `json:"location"`
				LocationType string `json:"locationType"`
			} `json:"errors"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(ge.Body), &env); err != nil || len(env.Error.Errors) == 0 {
		t.Fatalf("error body %q: not the Google envelope (%v)", ge.Body, err)
	}
	return env.Error.Errors[0].Location, env.Error.Errors[0].LocationType
}

// vendorWait waits on a global operation with globalOperations.wait until it is DONE.
func vendorWait(t *testing.T, svc *compute.Service, name string) *compute.Operation {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		op, err := svc.GlobalOperations.Wait(vendorProject, name).Context(ctx).Do()
		if err != nil {
			t.Fatalf("GlobalOperations.Wait(%s): %v", name, err)
		}
		if op.Status == "DONE" {
			return op
		}
		if ctx.Err() != nil {
			t.Fatalf("operation %s: got status %s after 30s, want DONE", name, op.Status)
		}
	}
}

func vendorCheckTime(t *testing.T, field, value string) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339Nano, value)
	if err != nil {
		t.Errorf("%s: got %q, want an RFC 3339 timestamp (%v)", field, value, err)
	}
	return ts
}

func vendorRuleNames(rules []*compute.ForwardingRule) []string {
	names := make([]string, 0, len(rules))
	for _, r := range rules {
		names = append(names, r.Name)
	}
	return names
}

func TestVendorClientForwardingRules(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{Delay: 300 * time.Millisecond})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()
	rulePath := "/projects/" + vendorProject + "/global/forwardingRules/"

	reqID := vendorUUID(t)
	newRule := func() *compute.ForwardingRule {
		return &compute.ForwardingRule{
			Name:                "fr-web",
			Description:         "web front end",
			IPProtocol:          "TCP",
			PortRange:           "443-443",
			LoadBalancingScheme: "EXTERNAL_MANAGED",
			Target:              vendorTarget,
			Labels:              map[string]string{"env": "prod"},
		}
	}
	var insertOp, deleteOp, setLabelsOp *compute.Operation
	var rule *compute.ForwardingRule
	needInsert := func(t *testing.T) {
		t.Helper()
		if insertOp == nil {
			t.Skip("needs the insert of fr-web")
		}
	}

	t.Run("InsertReturnsOperation", func(t *testing.T) {
		op, err := svc.GlobalForwardingRules.Insert(vendorProject, newRule()).RequestId(reqID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Insert: %v", err)
		}
		insertOp = op
		if got, want := op.Kind, "compute#operation"; got != want {
			t.Errorf("kind: got %q, want %q", got, want)
		}
		if got, want := op.OperationType, "insert"; got != want {
			t.Errorf("operationType: got %q, want %q", got, want)
		}
		if got := op.Status; got != "PENDING" && got != "RUNNING" {
			t.Errorf("status: got %q, want PENDING or RUNNING (300ms operations)", got)
		}
		if got, want := op.TargetLink, "/global/forwardingRules/fr-web"; !strings.HasSuffix(got, want) {
			t.Errorf("targetLink: got %q, want a URL ending with %q", got, want)
		}
		if got, want := op.ClientOperationId, reqID; got != want {
			t.Errorf("clientOperationId: got %q, want %q", got, want)
		}
		if got, want := op.User, vendorEmail; got != want {
			t.Errorf("user: got %q, want %q", got, want)
		}
		if !vendorOpName.MatchString(op.Name) {
			t.Errorf("name: got %q, want a match of %s", op.Name, vendorOpName)
		}
		if op.Id == 0 {
			t.Errorf("id: got 0, want a non-zero id")
		}
		if op.TargetId == 0 {
			t.Errorf("targetId: got 0, want the new rule's id")
		}
		if got, want := op.SelfLink, srv.URL+"/compute/v1/projects/"+vendorProject+"/global/operations/"+op.Name; got != want {
			t.Errorf("selfLink: got %q, want %q", got, want)
		}
		vendorCheckTime(t, "insertTime", op.InsertTime)
		if op.EndTime != "" {
			t.Errorf("endTime: got %q, want none before DONE", op.EndTime)
		}
	})

	t.Run("GetBeforeDoneThenWait", func(t *testing.T) {
		needInsert(t)
		_, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-web").Context(ctx).Do()
		ge := vendorAPIError(t, err, http.StatusNotFound, "notFound")
		if got, want := ge.Message, "The resource 'projects/"+vendorProject+"/global/forwardingRules/fr-web' was not found"; got != want {
			t.Errorf("message: got %q, want %q", got, want)
		}
		done := vendorWait(t, svc, insertOp.Name)
		if got, want := done.Progress, int64(100); got != want {
			t.Errorf("progress: got %d, want %d", got, want)
		}
		if done.EndTime == "" {
			t.Errorf("endTime: got none, want it set at DONE")
		} else {
			end := vendorCheckTime(t, "endTime", done.EndTime)
			if start := vendorCheckTime(t, "startTime", done.StartTime); end.Before(start) {
				t.Errorf("endTime %s is before startTime %s", done.EndTime, done.StartTime)
			}
		}
		if done.Error != nil {
			t.Errorf("error: got %+v, want none", done.Error)
		}
		if got, want := done.Name, insertOp.Name; got != want {
			t.Errorf("name: got %q, want %q", got, want)
		}
	})

	t.Run("RetryAndConflict", func(t *testing.T) {
		needInsert(t)
		again, err := svc.GlobalForwardingRules.Insert(vendorProject, newRule()).RequestId(reqID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("retried Insert: %v", err)
		}
		if got, want := again.Name, insertOp.Name; got != want {
			t.Errorf("retry name: got %q, want %q", got, want)
		}
		if got, want := again.Id, insertOp.Id; got != want {
			t.Errorf("retry id: got %d, want %d", got, want)
		}
		if got, want := again.Status, "DONE"; got != want {
			t.Errorf("retry status: got %q, want the current status %q", got, want)
		}
		list, err := svc.GlobalForwardingRules.List(vendorProject).Context(ctx).Do()
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		if got, want := vendorRuleNames(list.Items), []string{"fr-web"}; !slices.Equal(got, want) {
			t.Errorf("rules after the retry: got %q, want %q", got, want)
		}

		_, err = svc.GlobalForwardingRules.Insert(vendorProject, newRule()).Context(ctx).Do()
		ge := vendorAPIError(t, err, http.StatusConflict, "alreadyExists")
		if got, want := ge.Message, "The resource 'projects/"+vendorProject+"/global/forwardingRules/fr-web' already exists"; got != want {
			t.Errorf("message: got %q, want %q", got, want)
		}

		// While an insert still runs, a retry is the same operation and a second insert of
		// the name is a synchronous 409.
		raceID := vendorUUID(t)
		first, err := svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-race"}).RequestId(raceID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Insert fr-race: %v", err)
		}
		retry, err := svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-race"}).RequestId(raceID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("retried Insert fr-race: %v", err)
		}
		if got, want := retry.Name, first.Name; got != want {
			t.Errorf("retry while running: got operation %q, want %q", got, want)
		}
		if retry.Status == "DONE" {
			t.Logf("fr-race finished before its retry; the while-running case was not exercised")
		}
		_, err = svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-race"}).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusConflict, "alreadyExists")
		vendorWait(t, svc, first.Name)
	})

	t.Run("GetRule", func(t *testing.T) {
		needInsert(t)
		got, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-web").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		rule = got
		want := newRule()
		for _, c := range []struct{ field, got, want string }{
			{"kind", got.Kind, "compute#forwardingRule"},
			{"name", got.Name, want.Name},
			{"description", got.Description, want.Description},
			{"IPProtocol", got.IPProtocol, want.IPProtocol},
			{"portRange", got.PortRange, want.PortRange},
			{"loadBalancingScheme", got.LoadBalancingScheme, want.LoadBalancingScheme},
			{"target", got.Target, want.Target},
		} {
			if c.got != c.want {
				t.Errorf("%s: got %q, want %q", c.field, c.got, c.want)
			}
		}
		if got, want := got.Labels, want.Labels; len(got) != len(want) || got["env"] != want["env"] {
			t.Errorf("labels: got %v, want %v", got, want)
		}
		if got.Id == 0 {
			t.Errorf("id: got 0, want a non-zero id")
		}
		if got, want := got.Id, insertOp.TargetId; got != want {
			t.Errorf("id: got %d, want the insert operation's targetId %d", got, want)
		}
		if fp, err := base64.StdEncoding.DecodeString(got.LabelFingerprint); err != nil || len(fp) != 8 {
			t.Errorf("labelFingerprint: got %q, want base64 of 8 bytes (%v)", got.LabelFingerprint, err)
		}
		if got.LabelFingerprint == vendorEmptyFingerprint {
			t.Errorf("labelFingerprint: got %q, want one that is not the no-labels fingerprint", got.LabelFingerprint)
		}
		vendorCheckTime(t, "creationTimestamp", got.CreationTimestamp)
		if got, want := got.SelfLink, rulePath+"fr-web"; !strings.HasSuffix(got, want) {
			t.Errorf("selfLink: got %q, want a URL ending with %q", got, want)
		}
		if got, want := got.SelfLink, srv.URL+"/compute/v1"+rulePath+"fr-web"; got != want {
			t.Errorf("selfLink: got %q, want %q", got, want)
		}
		if got.IPAddress == "" {
			t.Errorf("IPAddress: got none, want an ephemeral address")
		}

		byID, err := svc.GlobalForwardingRules.Get(vendorProject, strconv.FormatUint(got.Id, 10)).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get by id %d: %v", got.Id, err)
		}
		if byID.Name != "fr-web" || byID.Id != got.Id {
			t.Errorf("get by id: got %q (%d), want %q (%d)", byID.Name, byID.Id, "fr-web", got.Id)
		}

		op, err := svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-bare", PortRange: "80-80"}).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Insert fr-bare: %v", err)
		}
		vendorWait(t, svc, op.Name)
		bare, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-bare").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get fr-bare: %v", err)
		}
		if got, want := bare.LabelFingerprint, vendorEmptyFingerprint; got != want {
			t.Errorf("labelFingerprint of a rule without labels: got %q, want %q", got, want)
		}
		if len(bare.Labels) != 0 {
			t.Errorf("labels: got %v, want none", bare.Labels)
		}
	})

	t.Run("SetLabels", func(t *testing.T) {
		if rule == nil {
			t.Skip("needs the rule read by GetRule")
		}
		oldFP := rule.LabelFingerprint
		newLabels := map[string]string{"env": "staging", "team": "web"}
		op, err := svc.GlobalForwardingRules.SetLabels(vendorProject, "fr-web",
			&compute.GlobalSetLabelsRequest{Labels: newLabels, LabelFingerprint: oldFP}).Context(ctx).Do()
		if err != nil {
			t.Fatalf("SetLabels: %v", err)
		}
		setLabelsOp = op
		if got, want := op.Status, "DONE"; got != want {
			t.Errorf("status: got %q, want %q (label changes apply at accept)", got, want)
		}
		if got, want := op.OperationType, "setLabels"; got != want {
			t.Errorf("operationType: got %q, want %q", got, want)
		}
		if got, want := op.Progress, int64(100); got != want {
			t.Errorf("progress: got %d, want %d", got, want)
		}
		if op.EndTime == "" {
			t.Errorf("endTime: got none, want it set")
		}
		if got, want := op.TargetLink, "/global/forwardingRules/fr-web"; !strings.HasSuffix(got, want) {
			t.Errorf("targetLink: got %q, want a URL ending with %q", got, want)
		}
		if got, want := op.User, vendorEmail; got != want {
			t.Errorf("user: got %q, want %q", got, want)
		}
		if !vendorOpName.MatchString(op.Name) {
			t.Errorf("name: got %q, want a match of %s", op.Name, vendorOpName)
		}

		after, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-web").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if got, want := after.Labels, newLabels; len(got) != len(want) || got["env"] != want["env"] || got["team"] != want["team"] {
			t.Errorf("labels: got %v, want %v", got, want)
		}
		if after.LabelFingerprint == oldFP {
			t.Errorf("labelFingerprint: got %q unchanged, want a new one", after.LabelFingerprint)
		}
		if fp, err := base64.StdEncoding.DecodeString(after.LabelFingerprint); err != nil || len(fp) != 8 {
			t.Errorf("labelFingerprint: got %q, want base64 of 8 bytes (%v)", after.LabelFingerprint, err)
		}

		_, err = svc.GlobalForwardingRules.SetLabels(vendorProject, "fr-web",
			&compute.GlobalSetLabelsRequest{Labels: map[string]string{"env": "dev"}, LabelFingerprint: oldFP}).Context(ctx).Do()
		ge := vendorAPIError(t, err, http.StatusPreconditionFailed, "conditionNotMet")
		if got, want := ge.Message, "Labels fingerprint either invalid or resource labels have changed"; got != want {
			t.Errorf("message: got %q, want %q", got, want)
		}
		loc, locType := vendorErrorItem(t, ge)
		if loc != "If-Match" || locType != "header" {
			t.Errorf("location: got %q (%q), want %q (%q)", loc, locType, "If-Match", "header")
		}

		_, err = svc.GlobalForwardingRules.SetLabels(vendorProject, "fr-web",
			&compute.GlobalSetLabelsRequest{Labels: map[string]string{"env": "dev"}}).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusPreconditionFailed, "conditionNotMet")

		_, err = svc.GlobalForwardingRules.SetLabels(vendorProject, "fr-web",
			&compute.GlobalSetLabelsRequest{Labels: map[string]string{"Env": "dev"}, LabelFingerprint: after.LabelFingerprint}).Context(ctx).Do()
		ge = vendorAPIError(t, err, http.StatusBadRequest, "invalid")
		if !strings.Contains(ge.Message, "Env") {
			t.Errorf("message: got %q, want it to name the label %q", ge.Message, "Env")
		}

		final, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-web").Context(ctx).Do()
		if err != nil {
			t.Fatalf("Get: %v", err)
		}
		if final.LabelFingerprint != after.LabelFingerprint || final.Labels["env"] != "staging" {
			t.Errorf("after rejected setLabels: got labels %v fingerprint %q, want %v fingerprint %q", final.Labels, final.LabelFingerprint, newLabels, after.LabelFingerprint)
		}
	})

	t.Run("ListFilterPagesOrder", func(t *testing.T) {
		needInsert(t)
		var ops []string
		for _, name := range []string{"fr-page-a", "fr-page-b", "fr-page-c"} {
			op, err := svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: name}).Context(ctx).Do()
			if err != nil {
				t.Fatalf("Insert %s: %v", name, err)
			}
			ops = append(ops, op.Name)
		}
		for _, op := range ops {
			vendorWait(t, svc, op)
		}
		// In creation order: fr-web, fr-race, fr-bare (earlier subtests), then these.
		created := []string{"fr-web", "fr-race", "fr-bare", "fr-page-a", "fr-page-b", "fr-page-c"}

		filtered, err := svc.GlobalForwardingRules.List(vendorProject).Filter(`name = "fr-web"`).Context(ctx).Do()
		if err != nil {
			t.Fatalf("List filter: %v", err)
		}
		if got, want := vendorRuleNames(filtered.Items), []string{"fr-web"}; !slices.Equal(got, want) {
			t.Errorf("filter name = \"fr-web\": got %q, want %q", got, want)
		}
		if got, want := filtered.Kind, "compute#forwardingRuleList"; got != want {
			t.Errorf("list kind: got %q, want %q", got, want)
		}

		var seen []string
		pages := 0
		err = svc.GlobalForwardingRules.List(vendorProject).MaxResults(1).Pages(ctx, func(l *compute.ForwardingRuleList) error {
			pages++
			if len(l.Items) > 1 {
				t.Errorf("page %d: got %d items, want at most 1", pages, len(l.Items))
			}
			seen = append(seen, vendorRuleNames(l.Items)...)
			return nil
		})
		if err != nil {
			t.Fatalf("List pages: %v", err)
		}
		byName := slices.Clone(created)
		slices.Sort(byName)
		if got, want := seen, byName; !slices.Equal(got, want) {
			t.Errorf("paged by 1: got %q, want each rule once, by name: %q", got, want)
		}
		if pages < len(created) {
			t.Errorf("pages: got %d, want at least %d", pages, len(created))
		}

		var newest []*compute.ForwardingRule
		err = svc.GlobalForwardingRules.List(vendorProject).OrderBy("creationTimestamp desc").MaxResults(2).Pages(ctx, func(l *compute.ForwardingRuleList) error {
			newest = append(newest, l.Items...)
			return nil
		})
		if err != nil {
			t.Fatalf("List orderBy: %v", err)
		}
		wantNewest := slices.Clone(created)
		slices.Reverse(wantNewest)
		if got, want := vendorRuleNames(newest), wantNewest; !slices.Equal(got, want) {
			t.Errorf("orderBy creationTimestamp desc: got %q, want %q", got, want)
		}
		for i := 1; i < len(newest); i++ {
			if newest[i].CreationTimestamp > newest[i-1].CreationTimestamp {
				t.Errorf("orderBy creationTimestamp desc: %s (%s) after %s (%s)", newest[i].Name, newest[i].CreationTimestamp, newest[i-1].Name, newest[i-1].CreationTimestamp)
			}
		}
	})

	t.Run("Delete", func(t *testing.T) {
		needInsert(t)
		delID := vendorUUID(t)
		op, err := svc.GlobalForwardingRules.Delete(vendorProject, "fr-web").RequestId(delID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("Delete: %v", err)
		}
		deleteOp = op
		if got, want := op.OperationType, "delete"; got != want {
			t.Errorf("operationType: got %q, want %q", got, want)
		}
		if got := op.Status; got != "PENDING" && got != "RUNNING" {
			t.Errorf("status: got %q, want PENDING or RUNNING", got)
		}
		if got, want := op.ClientOperationId, delID; got != want {
			t.Errorf("clientOperationId: got %q, want %q", got, want)
		}
		if got, want := op.TargetLink, "/global/forwardingRules/fr-web"; !strings.HasSuffix(got, want) {
			t.Errorf("targetLink: got %q, want a URL ending with %q", got, want)
		}
		if rule != nil && op.TargetId != rule.Id {
			t.Errorf("targetId: got %d, want %d", op.TargetId, rule.Id)
		}
		if _, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-web").Context(ctx).Do(); err != nil {
			t.Errorf("Get while the delete runs: got %v, want the rule", err)
		}
		retry, err := svc.GlobalForwardingRules.Delete(vendorProject, "fr-web").RequestId(delID).Context(ctx).Do()
		if err != nil {
			t.Fatalf("retried Delete: %v", err)
		}
		if got, want := retry.Name, op.Name; got != want {
			t.Errorf("retried delete: got operation %q, want %q", got, want)
		}
		vendorWait(t, svc, op.Name)
		_, err = svc.GlobalForwardingRules.Get(vendorProject, "fr-web").Context(ctx).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = svc.GlobalForwardingRules.Delete(vendorProject, "fr-web").Context(ctx).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
	})

	t.Run("Operations", func(t *testing.T) {
		needInsert(t)
		names := map[string]int{}
		err := svc.GlobalOperations.List(vendorProject).MaxResults(3).Pages(ctx, func(l *compute.OperationList) error {
			for _, op := range l.Items {
				names[op.Name]++
				if op.Kind != "compute#operation" {
					t.Errorf("listed %s: kind %q, want compute#operation", op.Name, op.Kind)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("GlobalOperations.List: %v", err)
		}
		for _, op := range []*compute.Operation{insertOp, setLabelsOp, deleteOp} {
			if op == nil {
				continue
			}
			if got := names[op.Name]; got != 1 {
				t.Errorf("operation %s (%s) listed %d times, want once", op.Name, op.OperationType, got)
			}
		}

		byName, err := svc.GlobalOperations.Get(vendorProject, insertOp.Name).Context(ctx).Do()
		if err != nil {
			t.Fatalf("GlobalOperations.Get by name: %v", err)
		}
		if byName.Id != insertOp.Id || byName.Status != "DONE" || byName.ClientOperationId != insertOp.ClientOperationId {
			t.Errorf("get by name: got id %d status %s clientOperationId %q, want id %d DONE %q", byName.Id, byName.Status, byName.ClientOperationId, insertOp.Id, insertOp.ClientOperationId)
		}
		byID, err := svc.GlobalOperations.Get(vendorProject, strconv.FormatUint(insertOp.Id, 10)).Context(ctx).Do()
		if err != nil {
			t.Fatalf("GlobalOperations.Get by id: %v", err)
		}
		if got, want := byID.Name, insertOp.Name; got != want {
			t.Errorf("get by id: got %q, want %q", got, want)
		}

		if err := svc.GlobalOperations.Delete(vendorProject, insertOp.Name).Context(ctx).Do(); err != nil {
			t.Fatalf("GlobalOperations.Delete: %v", err)
		}
		_, err = svc.GlobalOperations.Get(vendorProject, insertOp.Name).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
		_, err = svc.GlobalOperations.Get(vendorProject, strconv.FormatUint(insertOp.Id, 10)).Context(ctx).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")

		_, err = svc.RegionOperations.Get(vendorProject, "us-central1", "operation-1700000000000-0123456789abc-01234567-89abcdef").Context(ctx).Do()
		vendorAPIError(t, err, http.StatusNotFound, "notFound")
	})
}

// TestVendorClientManualOperations: in manual mode every read moves an operation one step.
func TestVendorClientManualOperations(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{Manual: true})
	svc := vendorService(t, srv, vendorToken(vendorEmail))
	ctx := context.Background()

	op, err := svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-manual", PortRange: "80-80"}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if got, want := op.Status, "PENDING"; got != want {
		t.Errorf("insert: got status %q, want %q", got, want)
	}
	if got, want := op.Progress, int64(0); got != want {
		t.Errorf("insert: got progress %d, want %d", got, want)
	}
	_, err = svc.GlobalForwardingRules.Get(vendorProject, "fr-manual").Context(ctx).Do()
	vendorAPIError(t, err, http.StatusNotFound, "notFound")

	steps := []struct {
		status   string
		progress int64
	}{{"RUNNING", 50}, {"DONE", 100}, {"DONE", 100}, {"DONE", 100}}
	for i, want := range steps {
		got, err := svc.GlobalOperations.Get(vendorProject, op.Name).Context(ctx).Do()
		if err != nil {
			t.Fatalf("get %d: %v", i+1, err)
		}
		if got.Status != want.status || got.Progress != want.progress {
			t.Errorf("get %d: got %s %d, want %s %d", i+1, got.Status, got.Progress, want.status, want.progress)
		}
		if got.StartTime == "" {
			t.Errorf("get %d: startTime: got none, want it set once RUNNING", i+1)
		}
		if (got.EndTime != "") != (want.status == "DONE") {
			t.Errorf("get %d: endTime: got %q, want it set exactly when DONE", i+1, got.EndTime)
		}
	}
	if _, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-manual").Context(ctx).Do(); err != nil {
		t.Errorf("Get after DONE: got %v, want the rule", err)
	}
}

// TestVendorClientTokenSource: the client's own OAuth path (a static token source) works
// against understudy without any credentials discovery.
func TestVendorClientTokenSource(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{})
	ctx := context.Background()
	svc, err := compute.NewService(ctx,
		option.WithEndpoint(srv.URL+"/compute/v1/"),
		option.WithTokenSource(oauth2.StaticTokenSource(&oauth2.Token{AccessToken: vendorToken(vendorEmail), TokenType: "Bearer"})))
	if err != nil {
		t.Fatalf("compute.NewService: %v", err)
	}
	op, err := svc.GlobalForwardingRules.Insert(vendorProject, &compute.ForwardingRule{Name: "fr-token"}).Context(ctx).Do()
	if err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if got, want := op.Status, "DONE"; got != want {
		t.Errorf("status: got %q, want %q (immediate mode)", got, want)
	}
	if got, want := op.User, vendorEmail; got != want {
		t.Errorf("user: got %q, want %q", got, want)
	}
	if _, err := svc.GlobalForwardingRules.Get(vendorProject, "fr-token").Context(ctx).Do(); err != nil {
		t.Errorf("Get: %v", err)
	}
}

// TestVendorClientNoToken: without a bearer token the client gets the 401 of Google's front
// end: its message, the entry's "Login Required.", the canonical status and the challenge.
func TestVendorClientNoToken(t *testing.T) {
	vendorIsolate(t)
	srv := vendorStart(t, operations.Mode{})
	svc := vendorService(t, srv, "")
	_, err := svc.GlobalForwardingRules.List(vendorProject).Context(context.Background()).Do()
	ge := vendorAPIError(t, err, http.StatusUnauthorized, "required")
	loc, locType := vendorErrorItem(t, ge)
	if loc != "Authorization" || locType != "header" {
		t.Errorf("location: got %q (%q), want %q (%q)", loc, locType, "Authorization", "header")
	}
	const msg = "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
	if ge.Message != msg || len(ge.Errors) != 1 || ge.Errors[0].Message != "Login Required." {
		t.Errorf("messages: %q, %+v", ge.Message, ge.Errors)
	}
	var body struct{ Error struct{ Status string } }
	if json.Unmarshal([]byte(ge.Body), &body) != nil || body.Error.Status != "UNAUTHENTICATED" {
		t.Errorf("status: %s", ge.Body)
	}
	if got := ge.Header.Get("WWW-Authenticate"); got != `Bearer realm="https://accounts.google.com/"` {
		t.Errorf("WWW-Authenticate %q", got)
	}
}
