package compute

import (
	"strings"
	"testing"
)

// splitRef is parseRef as it was written first, with strings.Split: the reference the
// allocation-free parseRef must agree with (with relative paths added).
func splitRef(s, collection, project string) (ref, bool) {
	i := strings.LastIndex(s, "projects/")
	if i < 0 && (strings.HasPrefix(s, "global/") || strings.HasPrefix(s, "regions/")) {
		s, i = "projects/"+project+"/"+s, 0
	}
	if i < 0 {
		return ref{}, false
	}
	parts := strings.Split(strings.Trim(s[i:], "/"), "/")
	switch {
	case len(parts) == 5 && parts[2] == "global" && parts[3] == collection:
		return ref{Project: parts[1], Name: parts[4]}, parts[1] != "" && parts[4] != ""
	case len(parts) == 6 && parts[2] == "regions" && parts[4] == collection:
		return ref{Project: parts[1], Region: parts[3], Name: parts[5]}, parts[1] != "" && parts[3] != "" && parts[5] != ""
	}
	return ref{}, false
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
