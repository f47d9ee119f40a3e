// Package timefmt formats the timestamps the APIs show: UTC, to the millisecond; and the
// exact ones a state export writes.
//
// It spells the one layout out instead of calling time.Format, which interprets its layout
// on every call, and every compute operation and account shows several timestamps.
package timefmt

import (
	"fmt"
	"time"
)

// Millis is t in UTC as "2006-01-02T15:04:05.000" followed by zone, which must be "Z" or
// "+00:00": what t.UTC().Format writes with the layout "2006-01-02T15:04:05.000Z07:00" or
// "2006-01-02T15:04:05.000-07:00" respectively.
func Millis(t time.Time, zone string) string {
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		layout := "2006-01-02T15:04:05.000Z07:00"
		if zone != "Z" {
			layout = "2006-01-02T15:04:05.000-07:00"
		}
		return t.Format(layout) // time.Format's own rules for years of other widths
	}
	hour, min, sec := t.Clock()
	ms := t.Nanosecond() / 1e6
	var buf [32]byte
	b := two(two(buf[:0], year/100), year%100)
	b = two(append(b, '-'), int(month))
	b = two(append(b, '-'), day)
	b = two(append(b, 'T'), hour)
	b = two(append(b, ':'), min)
	b = two(append(b, ':'), sec)
	b = append(b, '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10))
	return string(append(b, zone...))
}

// two appends v (0 to 99) as two digits.
func two(b []byte, v int) []byte { return append(b, byte('0'+v/10), byte('0'+v%10)) }

// Exact is t in UTC as RFC 3339 with every fractional digit it has (none to nine), the form
// a state export writes times in: parsed back (Parse), it is the same instant to the
// nanosecond, which the APIs' lists order by.
func Exact(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// Parse reads an RFC 3339 time, with or without fractional seconds, as Exact writes it or
// as the APIs show it, and returns it in UTC.
func Parse(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time such as 2026-11-21T10:00:00.123Z", s)
	}
	return t.UTC(), nil
}
