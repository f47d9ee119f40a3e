package console

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	computegen "github.com/understudy-dev/understudy/gen/compute"
)

// TestPictureDrawsEveryBlockedMetro: a metro an INCOMPATIBLE_METROS blocker names gets a
// column, drawn as missing, even when no member is in it. The emulator's own analysis names
// only the metros its members are in, so no request makes such a group: the pictures are
// drawn here from GET responses that name one, for both kinds of group.
func TestPictureDrawsEveryBlockedMetro(t *testing.T) {
	const attachmentGroup = `{
		"name": "critical",
		"intent": {"availabilitySla": "PRODUCTION_CRITICAL"},
		"configured": {"availabilitySla": {"effectiveSla": "PRODUCTION_NON_CRITICAL", "intendedSlaBlockers": [
			{"blockerType": "INCOMPATIBLE_METROS", "explanation": "iad and lga are too close.", "metros": ["iad", "lga"]}
		]}},
		"logicalStructure": {"regions": [{"region": "us-east4", "metros": [{"metro": "iad", "facilities": [
			{"facility": "iad-1", "zones": [{"zone": "zone1", "attachments": ["regions/us-east4/interconnectAttachments/a1"]}]},
			{"facility": "iad-2", "zones": [{"zone": "zone2", "attachments": ["regions/us-east4/interconnectAttachments/a2"]}]}
		]}]}]}
	}`
	const interconnectGroup = `{
		"name": "ics",
		"intent": {"topologyCapability": "PRODUCTION_CRITICAL"},
		"configured": {"topologyCapability": {"supportedSla": "PRODUCTION_NON_CRITICAL", "intendedCapabilityBlockers": [
			{"blockerType": "INCOMPATIBLE_METROS", "explanation": "sjc and sfo are too close.", "metros": ["sfo", "sjc"]}
		]}},
		"physicalStructure": {"metros": [{"metro": "sjc", "facilities": [
			{"facility": "sjc-1", "zones": [{"zone": "zone1", "interconnects": ["global/interconnects/ic1"]}, {"zone": "zone2", "interconnects": ["global/interconnects/ic2"]}]}
		]}]}
	}`
	var ag computegen.InterconnectAttachmentGroup
	var ig computegen.InterconnectGroup
	if err := json.Unmarshal([]byte(attachmentGroup), &ag); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(interconnectGroup), &ig); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		p                picture
		present, missing string
	}{
		{attachmentGroupPicture(ag), "iad", "lga"},
		{interconnectGroupPicture(ig), "sjc", "sfo"},
	} {
		out, err := renderPart("picture", tc.p)
		if err != nil {
			t.Fatal(err)
		}
		svg := string(out)
		groups := metroGroups(svg)
		if got := groups[tc.present]; got != "metro blocked" {
			t.Errorf("%s: metro %s drawn with class %q, want %q:\n%s", tc.p.Name, tc.present, got, "metro blocked", svg)
		}
		if got := groups[tc.missing]; got != "metro blocked missing" {
			t.Errorf("%s: metro %s drawn with class %q, want %q:\n%s", tc.p.Name, tc.missing, got, "metro blocked missing", svg)
		}
		if n := strings.Count(svg, ">no member</text>"); n != 1 {
			t.Errorf("%s: %d metros marked as having no member, want 1", tc.p.Name, n)
		}
		if n := strings.Count(svg, `<g class="member">`); n != 2 {
			t.Errorf("%s: %d members drawn, want 2", tc.p.Name, n)
		}
		// The columns side by side: the picture is as wide as both.
		if want := 2 * (metroWidth + metroGap); tc.p.Width != want {
			t.Errorf("%s: picture %d wide, want %d", tc.p.Name, tc.p.Width, want)
		}
	}
}

var metroGroup = regexp.MustCompile(`<g class="(metro[^"]*)" data-metro="([^"]*)">`)

// metroGroups is each metro the SVG draws, with its group's class.
func metroGroups(svg string) map[string]string {
	out := map[string]string{}
	for _, m := range metroGroup.FindAllStringSubmatch(svg, -1) {
		out[m[2]] = m[1]
	}
	return out
}
