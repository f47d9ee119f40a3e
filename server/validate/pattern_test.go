package validate

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// extraPatterns are shapes the specs do not have, on both sides of compileDFA's line.
var extraPatterns = []string{
	uuidPattern, `^[A-Z]{2}$`, `^\d{4}-\d{2}$`, `^(ab){2}c$`, `^a(?:b|c)$`, `^(?i)abc$`, `^[^a]$`, `^x*$`, `^x{2,3}$`,
	`^$`, `abc`, `^abc`, `abc$`, `^a\bb$`, `^é$`, `^[a-é]$`, `^.$`, `^[\x00-\x7f]{2}$`, `^(?:)$`, `^a$|^b$`,
	`^[a-z]([-a-z0-9]*[a-z0-9])?$`, `^(a|ab)(c|bcd)(d*)$`, `^(x+x+)+y$`, `^a{0,70}b?$`, `^[k]$`, `^(?i:k)$`, `^a^b$`,
	`^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$`, `^[^\x80-\x{10FFFF}]$`, `^a{300}$`,
	`^https?://\S+$`, `^a\S*b$`, `^[^a]+$`, `^(\S+\s)+$`, `^x[^ab]*y[^c]+$`, `^\S{2}$`, `^\S\S+$`, `^[^a]\S*$`,
	`^[^é]+$`, `^\S+é$`, `^(?i)\S+$`, `^(\S|ab)+c$`,
}

// specPatterns are the patterns of the four specs, as written in them.
func specPatterns(t testing.TB) []string {
	files, err := filepath.Glob("../../specs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("specs: %v (%d files)", err, len(files))
	}
	line := regexp.MustCompile(`(?m)^\s*pattern:\s*'(.*)'\s*$`)
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range line.FindAllStringSubmatch(string(b), -1) {
			out = append(out, strings.ReplaceAll(m[1], "''", "'"))
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d patterns found in the specs", len(out))
	}
	return out
}

// TestPatternMatchesRegexp: for every pattern, the byte-class matcher (where it applies)
// accepts exactly what regexp accepts, on strings built from its own classes and on
// mutations of them (a byte changed, added or removed, non-ASCII and invalid UTF-8).
func TestPatternMatchesRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	automata := 0
	for _, expr := range append(specPatterns(t), extraPatterns...) {
		p, err := compilePattern(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if p.dfa == nil {
			continue
		}
		automata++
		re := regexp.MustCompile(expr)
		for range 3000 {
			s := mutate(rng, member(rng, p.dfa))
			if got, want := p.MatchString(s), re.MatchString(s); got != want {
				t.Fatalf("%q on %q: the automaton says %v, regexp %v", expr, s, got, want)
			}
		}
	}
	// The specs' patterns are nearly all ^ASCII$; so are most of the extra ones.
	if automata < 25 {
		t.Fatalf("only %d patterns use an automaton", automata)
	}
	// Classes of every character beyond ASCII where one more such byte stays in the same
	// state: an automaton.
	for _, expr := range []string{`^https?://\S+$`, `^a\S*b$`, `^[^a]+$`, `^(\S+\s)+$`, `^x[^ab]*y[^c]+$`, `^[^a]\S*$`} {
		if p, _ := compilePattern(expr); p.dfa == nil {
			t.Errorf("%q: no automaton", expr)
		}
	}
	for _, expr := range []string{`^(?i)abc$`, `^(?i:k)$`, `^[^a]$`, `abc`, `^abc`, `abc$`, `^a\bb$`, `^é$`, `^[a-é]$`, `^.$`,
		`^a$|^b$`, `^a^b$`, `^a{300}$`, `^\S{2}$`, `^\S\S+$`, `^[^é]+$`, `^\S+é$`} {
		if p, _ := compilePattern(expr); p.dfa != nil {
			t.Errorf("%q: an automaton used for a pattern it cannot express", expr)
		}
	}
}

// member is a random string the automaton accepts (when it accepts any): a walk from the
// start through states that can still reach an accepting one, ending at an accepting one.
func member(rng *rand.Rand, d *byteDFA) string {
	// live[st]: an accepting state can be reached from st.
	live := slices.Clone(d.accept)
	for changed := true; changed; {
		changed = false
		for st := range d.next {
			for _, n := range d.next[st] {
				if !live[st] && n != 0 && live[n] {
					live[st], changed = true, true
				}
			}
		}
	}
	var b []byte
	st := uint16(1)
	for live[st] && len(b) < 200 {
		if d.accept[st] && rng.IntN(4) == 0 {
			break
		}
		var moves []byte
		for c, n := range d.next[st] {
			if n != 0 && live[n] {
				moves = append(moves, byte(c))
			}
		}
		if n := d.high[st]; n != 0 && live[n] {
			moves = append(moves, 0x80) // stands for a character beyond ASCII
		}
		if len(moves) == 0 {
			break
		}
		c := moves[rng.IntN(len(moves))]
		if c == 0x80 {
			// One to four bytes, or an invalid one.
			b, st = append(b, []string{"é", "€", "😀", "\xff", "\u2028"}[rng.IntN(5)]...), d.high[st]
			continue
		}
		b, st = append(b, c), d.next[st][c]
	}
	return string(b)
}

// mutate changes s at random, or leaves it (a third of the time).
func mutate(rng *rand.Rand, s string) string {
	b := []byte(s)
	switch i := rng.IntN(len(b) + 1); rng.IntN(6) {
	case 0, 1:
		return s
	case 2:
		if i < len(b) {
			b[i] = byte(rng.IntN(256))
		}
	case 3:
		b = append(b[:i], append([]byte{byte(rng.IntN(128))}, b[i:]...)...)
	case 4:
		if i < len(b) {
			b = append(b[:i], b[i+1:]...)
		}
	case 5:
		b = append(b[:i], append([]byte("é\xff"), b[i:]...)...)
	}
	return string(b)
}

// FuzzPattern compares the automaton with regexp on any string, for the patterns of the
// specs and the extra ones that have one.
func FuzzPattern(f *testing.F) {
	var ps []*pattern
	var res []*regexp.Regexp
	for _, expr := range append(specPatterns(f), extraPatterns...) {
		if p, err := compilePattern(expr); err == nil && p.dfa != nil {
			ps, res = append(ps, p), append(res, regexp.MustCompile(expr))
		}
	}
	f.Add(uint8(0), "ce2ce14e-85d7-4629-bdbc-454d0519d987")
	f.Add(uint8(1), "US")
	f.Fuzz(func(t *testing.T, i uint8, s string) {
		p, re := ps[int(i)%len(ps)], res[int(i)%len(ps)]
		if got, want := p.MatchString(s), re.MatchString(s); got != want {
			t.Fatalf("%q on %q: the automaton says %v, regexp %v", re, s, got, want)
		}
	})
}
