package compute

import (
	"regexp"
	"strings"
	"testing"
)

// splitRef is parseRef with a regular expression for what refPath strips by hand: the
// reference parseRef must agree with.
func splitRef(s, collection, project string) (ref, bool) {
	switch m := refPrefix.FindStringSubmatch(s); {
	case m != nil:
		s = m[1]
	case strings.HasPrefix(s, "global/") || strings.HasPrefix(s, "regions/"):
		s = "projects/" + project + "/" + s
	}
	if !strings.HasPrefix(s, "projects/") {
		return ref{}, false
	}
	parts := strings.Split(strings.TrimRight(s, "/"), "/")
	regional := collection == "interconnectAttachments"
	switch {
	case !regional && len(parts) == 5 && parts[2] == "global" && parts[3] == collection:
		return ref{Project: parts[1], Name: parts[4]}, parts[1] != "" && parts[4] != ""
	case regional && len(parts) == 6 && parts[2] == "regions" && parts[4] == collection:
		return ref{Project: parts[1], Region: parts[3], Name: parts[5]}, parts[1] != "" && parts[3] != "" && parts[5] != ""
	}
	return ref{}, false
}

// refPrefix is what may stand before a reference's projects/ segment: a URL up to the
// first API path, or one slash.
var refPrefix = regexp.MustCompile(`^(?:https?://.*?/compute/(?:v1|beta|alpha)/|/)(.*)$`)

// TestParseRefRules: what a reference may look like, and what it may not.
func TestParseRefRules(t *testing.T) {
	for in, want := range map[string]bool{
		"https://www.googleapis.com/compute/v1/projects/p/global/interconnects/ic":       true,
		"https://compute.googleapis.com/compute/beta/projects/p/global/interconnects/ic": true,
		"http://127.0.0.1:8080/base/compute/v1/projects/p/global/interconnects/ic":       true,
		"projects/p/global/interconnects/ic":                                             true,
		"/projects/p/global/interconnects/ic":                                            true,
		"global/interconnects/ic":                                                        true,
		"xprojects/p/global/interconnects/ic":                                            false,
		"https://evil.example/foo/projects/p/global/interconnects/ic":                    false,
		"projects/p/projects/p/global/interconnects/ic":                                  false,
		"regions/us-east4/interconnects/ic":                                              false,
		"projects/p/regions/us-east4/interconnects/ic":                                   false,
		"https://www.googleapis.com/compute/v1/global/interconnects/ic":                  false,
	} {
		if _, ok := parseRef(in, "interconnects", "req"); ok != want {
			t.Errorf("parseRef(%q, interconnects) ok = %v, want %v", in, ok, want)
		}
	}
	if _, ok := parseRef("global/interconnectAttachments/a", "interconnectAttachments", "req"); ok {
		t.Error("an attachment is regional: a global path to one names nothing")
	}
}

// TestRefOrName: a plain name is the request's project's; anything else is read as parseRef
// reads it.
func TestRefOrName(t *testing.T) {
	for in, want := range map[string]ref{
		"aws-iad-1": {Project: "req", Name: "aws-iad-1"},
		"global/interconnectRemoteLocations/aws-iad-1":                                          {Project: "req", Name: "aws-iad-1"},
		"https://www.googleapis.com/compute/v1/projects/p/global/interconnectRemoteLocations/x": {Project: "p", Name: "x"},
		"Aws-iad-1":  {},
		"aws-iad-1-": {},
		"global/interconnectLocations/iad-zone1-1": {},
	} {
		if got, ok := refOrName(in, "interconnectRemoteLocations", "req"); got != want || ok != (want != ref{}) {
			t.Errorf("refOrName(%q) = %+v, %v; want %+v", in, got, ok, want)
		}
	}
}

func TestParseRefMatchesSplit(t *testing.T) {
	inputs := []string{
		"", "projects/", "projects/p", "projects/p/global/interconnects/ic", "projects/p/global/interconnects/ic/",
		"/projects/p/global/interconnects/ic", "https://x.example/compute/v1/projects/p/global/interconnects/ic",
		"projects/p/global/interconnects/ic/extra", "projects/p/global/interconnects/ic/extra/more",
		"projects/p/regions/r/interconnectAttachments/a", "projects/p/regions/r/interconnectAttachments/a/b",
		"projects/p/regions/r/interconnectAttachments/", "projects//regions/r/interconnectAttachments/a",
		"projects/p/regions//interconnectAttachments/a", "projects/p/global//ic", "projects/p//global/interconnects/ic",
		"http://h/projects/x/projects/p/regions/r/interconnectAttachments/a", "projects/p/regions/r/interconnects/a",
		"projects/p/global/interconnectAttachments/a", "//projects/p/regions/r/interconnectAttachments/a//",
		"projects/p/a/b/c/d/e/f/g/h", "projects/p/global/interconnects/ic?x=1",
		"projects/projects/global/interconnects/ic", "xprojects/p/global/interconnects/ic",
		"projects/p/global/interconnects/projects/", "projects/projects/projects/global/interconnects/ic",
		"global/interconnects/ic", "global/interconnects/ic/", "regions/r/interconnectAttachments/a",
		"regions/r/interconnectAttachments/a/b", "regions//interconnectAttachments/a", "global/interconnects/",
		"/global/interconnects/ic", "xglobal/interconnects/ic", "global/interconnectLocations/iad-zone1-1",
		"regions/r/interconnectAttachments/projects/p", "global/interconnects/ic/projects/p/global/interconnects/j",
		"https://compute/v1/projects/p/global/interconnects/ic", "https://h/compute/compute/v1/projects/p/global/interconnects/ic",
		"https:///compute/v1/projects/p/global/interconnects/ic", "http://h/compute/v2/projects/p/global/interconnects/ic",
		"https://h/compute/beta/x/compute/v1/projects/p/global/interconnects/ic", "https://h/compute/alpha/global/interconnects/ic",
		"ftp://h/compute/v1/projects/p/global/interconnects/ic", "//projects/p/global/interconnects/ic",
	}
	for _, in := range inputs {
		for _, coll := range []string{"interconnects", "interconnectAttachments"} {
			got, gotOK := parseRef(in, coll, "req")
			want, wantOK := splitRef(in, coll, "req")
			if got != want || gotOK != wantOK {
				t.Errorf("parseRef(%q, %q) = %+v, %v; want %+v, %v", in, coll, got, gotOK, want, wantOK)
			}
		}
	}
}

func FuzzParseRef(f *testing.F) {
	f.Add("projects/p/regions/r/interconnectAttachments/a", "interconnectAttachments")
	f.Add("https://x/compute/v1/projects/p/global/interconnects/ic/", "interconnects")
	f.Add("regions/r/interconnectAttachments/a", "interconnectAttachments")
	f.Fuzz(func(t *testing.T, in, coll string) {
		got, gotOK := parseRef(in, coll, "req")
		want, wantOK := splitRef(in, coll, "req")
		if got != want || gotOK != wantOK {
			t.Fatalf("parseRef(%q, %q) = %+v, %v; want %+v, %v", in, coll, got, gotOK, want, wantOK)
		}
	})
}
