package sla

import (
	"fmt"
	"testing"
)

// bench16 is 16 attachments: 4 metros in 2 regions, 2 facilities and both
// zones per metro, in an unsorted order.
func bench16() []Attachment {
	var atts []Attachment
	for i := range 16 {
		j := (i * 7) % 16
		metro := propMetros[j%4]
		atts = append(atts, Attachment{
			URL:      fmt.Sprintf("https://www.googleapis.com/compute/v1/projects/p/regions/r/interconnectAttachments/a%02d", j),
			Region:   propRegions[j%2],
			Metro:    metro,
			Facility: fmt.Sprintf("%s-%d", metro, j/8),
			Zone:     propZones[(j/4)%2],
			Active:   j != 3,
		})
	}
	return atts
}

func BenchmarkAnalyze(b *testing.B) {
	atts := bench16()
	if got := Analyze(ProductionCritical, atts).Effective; got != ProductionCritical {
		b.Fatalf("bench topology: effective %s", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		Analyze(ProductionCritical, atts)
	}
}

func BenchmarkAnalyzeBlocked(b *testing.B) {
	atts := bench16()[:5] // incomplete metros: several blockers with explanations
	if len(Analyze(ProductionCritical, atts).Blockers) == 0 {
		b.Fatal("bench topology: no blockers")
	}
	b.ReportAllocs()
	for b.Loop() {
		Analyze(ProductionCritical, atts)
	}
}

func BenchmarkLogicalStructure(b *testing.B) {
	atts := bench16()
	b.ReportAllocs()
	for b.Loop() {
		LogicalStructure(atts)
	}
}
