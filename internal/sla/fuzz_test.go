package sla

import (
	"fmt"
	"testing"
)

// decodeTopology turns fuzz bytes into an intent and a small topology. The
// first byte picks the intent (including an unrecognised one); each
// following 4-byte chunk is one attachment: region, metro, zone (including
// an invalid one) and, in the last byte, active and facility.
func decodeTopology(data []byte) (Level, []Attachment) {
	if len(data) == 0 {
		return NoSLA, nil
	}
	intent := [...]Level{NoSLA, ProductionNonCritical, ProductionCritical, "AVAILABILITY_SLA_UNSPECIFIED"}[data[0]%4]
	data = data[1:]
	var atts []Attachment
	for i := 0; i+4 <= len(data) && len(atts) < 16; i += 4 {
		c := data[i : i+4]
		metro := propMetros[int(c[1])%len(propMetros)]
		atts = append(atts, Attachment{
			URL:      fmt.Sprintf("https://example.test/attachments/f%02d", len(atts)),
			Region:   propRegions[int(c[0])%len(propRegions)],
			Metro:    metro,
			Facility: fmt.Sprintf("%s-%d", metro, 1+(c[3]>>1)%2),
			Zone:     propZones[int(c[2])%len(propZones)],
			Active:   c[3]&1 == 1,
		})
	}
	return intent, atts
}

func FuzzAnalyze(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{2})
	f.Add([]byte{1, 0, 0, 0, 1, 0, 0, 1, 1})
	f.Add([]byte{2, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1})             // critical met
	f.Add([]byte{2, 0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 2, 2, 0, 1}) // plus a lone metro
	f.Add([]byte{2, 0, 0, 2, 0, 1, 1, 2, 3})                                     // invalid zones
	f.Add([]byte{3, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		intent, atts := decodeTopology(data)
		checkInvariants(t, intent, atts)
		if GroupStatus(atts) == "" {
			t.Fatal("empty group status")
		}
	})
}
