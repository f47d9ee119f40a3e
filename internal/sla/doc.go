// Package sla analyses the availability SLA of an interconnect attachment
// group: the effective SLA level its attachments support, the blockers that
// keep it from the intended level, and the group's logical structure. It is
// the pure, deterministic core behind an InterconnectAttachmentGroup's
// configured.availabilitySla, logicalStructure and the getOperationalStatus
// response; it does no I/O and knows nothing of storage or HTTP.
//
// # Levels
//
// A level is satisfied by a set of attachments as follows. A metro is
// complete when it has attachments in both zone1 and zone2 (its two edge
// availability domains); zone values other than "zone1" and "zone2" count
// as neither zone.
//
//   - NO_SLA is always satisfied.
//   - PRODUCTION_NON_CRITICAL (99.9%) needs at least one complete metro.
//   - PRODUCTION_CRITICAL (99.99%) needs at least two complete metros whose
//     attachments lie in at least two regions.
//
// Analyze reports as Effective the highest satisfied level, capped at the
// intent: a group that could qualify for PRODUCTION_CRITICAL but intends
// PRODUCTION_NON_CRITICAL is effective PRODUCTION_NON_CRITICAL.
//
// # Blockers
//
// Blockers say why the intent is not met; the list is empty (never nil)
// exactly when Effective equals the intent, and it is always empty for the
// intent NO_SLA.
//
//   - No attachments at all: a single NO_ATTACHMENTS blocker, whatever the
//     intent.
//   - Intent PRODUCTION_NON_CRITICAL, no complete metro: a single
//     NO_ATTACHMENTS_IN_METRO_AND_ZONE blocker whose Metros are all metros
//     used and whose Zones are the union of the zones they lack.
//   - Intent PRODUCTION_CRITICAL, not satisfied: INCOMPATIBLE_METROS when
//     fewer than two metros are used (Metros = those used), then
//     INCOMPATIBLE_REGIONS when fewer than two regions are used (Regions =
//     those used), then one NO_ATTACHMENTS_IN_METRO_AND_ZONE per incomplete
//     metro, in metro order (Metros = that metro, Zones = the zones it lacks,
//     Attachments = the URLs of that metro's attachments).
//
// Every blocker carries a human-readable Explanation naming the metros,
// regions and zones involved and the DocumentationLink of the public "Fix
// SLA eligibility problems" page. List fields a blocker type does not use
// are nil; the others are sorted and deduplicated.
//
// # Decisions the real service leaves open
//
// The public documentation (Dedicated Interconnect topologies for 99.9% and
// 99.99%, and the blocker descriptions on the fix-sla page) fixes the
// requirements but not the exact algorithm. The emulator decides:
//
//   - Counting. Regions and metros are counted over the attachments
//     themselves; Cloud Routers and the VPC network's dynamic routing mode
//     are not modelled, so MISSING_GLOBAL_ROUTING and OTHER never occur.
//   - Extra incomplete metros do not lower the SLA. The first-cut rule
//     "PRODUCTION_CRITICAL needs at least two metros, at least two regions,
//     and every metro used complete" is not monotonic: adding a lone
//     attachment in a third metro would drop a working 99.99% group to
//     99.9%. We therefore ask whether some subset of the attachments meets
//     that rule, which is the same as asking for two complete metros whose
//     attachments span two regions (the rule stated above). The two rules
//     agree whenever every metro used is complete; they differ only when a
//     group that already qualifies has an extra incomplete metro, which no
//     longer blocks it. When the intent is not met, the blockers are still
//     those of the first-cut rule, so fixing all of them always reaches the
//     intent. Consequently adding an attachment never lowers Effective.
//   - NO_ATTACHMENTS_IN_METRO_AND_ZONE for PRODUCTION_NON_CRITICAL lists all
//     metros and the union of their missing zones in one blocker; the
//     Explanation spells out which metro lacks which zone.
//   - An unrecognised intent (for example AVAILABILITY_SLA_UNSPECIFIED) is
//     treated as NO_SLA: Effective is NO_SLA and there are no blockers.
//     Callers validate the intent first (see Level.Valid).
//   - Attachments with zones other than zone1/zone2 still count for metros
//     and regions and appear in LogicalStructure under their zone value as
//     given; empty names are kept as they are.
//   - Operational analyses the active attachments only, so its
//     NO_ATTACHMENTS blocker means "no active attachments"; its wording is
//     the same as Analyze's so that an all-active group gets an identical
//     result from both.
//
// # Determinism
//
// The result depends only on the set of attachments, never on their order:
// every list in an Analysis or a Structure is sorted. Inputs are not
// modified.
package sla
