package validate

import (
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"regexp/syntax"
	"sync"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
)

// pattern is a compiled schema pattern. A pattern anchored at both ends (^...$) whose
// inside matches only ASCII (a UUID: ^[0-9a-fA-F]{8}-...$, a name:
// ^[a-z]([-a-z0-9]*[a-z0-9])?$, an id: ^acct_[A-Za-z0-9]{16,64}$), or beyond ASCII only
// through classes that repeat and take every such character (a URL: ^https?://\S+$), is
// matched by a deterministic automaton over bytes, one table lookup per byte, without
// regexp: for a UUID that is about 40 times fewer instructions than regexp's one-pass
// matcher, and names skip regexp's backtracker. Any other pattern is regexp's. Both accept
// exactly the same strings (TestPatternMatchesRegexp, FuzzPattern).
type pattern struct {
	re  *regexp.Regexp
	dfa *byteDFA // when not nil: matches what re matches
}

// compiled holds each pattern compiled so far (expr -> *pattern): the specs repeat their
// patterns in many schemas, and one copy of each automaton serves them all.
var compiled sync.Map

func compilePattern(expr string) (*pattern, error) {
	if p, ok := compiled.Load(expr); ok {
		return p.(*pattern), nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	p, _ := compiled.LoadOrStore(expr, &pattern{re: re, dfa: compileDFA(expr)})
	return p.(*pattern), nil
}

func (p *pattern) MatchString(s string) bool {
	if p.dfa == nil {
		return p.re.MatchString(s)
	}
	return matchDFA(p.dfa, s)
}

// Match is MatchString for the bytes of a string.
func (p *pattern) Match(b []byte) bool {
	if p.dfa == nil {
		return p.re.Match(b)
	}
	return matchDFA(p.dfa, b)
}

func (p *pattern) String() string { return p.re.String() }

// byteDFA is a deterministic automaton over bytes that must consume the whole text. State 0
// is dead (nothing can match any more); state 1 is the start.
type byteDFA struct {
	next [][128]uint16 // next[state][byte], for ASCII
	// high[state] is the state after any byte from 0x80 up: one of a character beyond
	// ASCII, or invalid UTF-8, which regexp reads as U+FFFD. buildDFA makes sure it does not
	// matter how many such bytes one character has.
	high   []uint16
	accept []bool // accept[state]: the text may end here
}

func matchDFA[S string | []byte](d *byteDFA, s S) bool {
	st := uint16(1)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 128 {
			st = d.next[st][c]
		} else {
			st = d.high[st]
		}
		if st == 0 {
			return false
		}
	}
	return d.accept[st]
}

// maxDFAStates bounds an automaton; patterns that would need more stay with regexp. The
// specs' largest (^acct_[A-Za-z0-9]{16,64}$) needs 71.
const maxDFAStates = 256

// compileDFA returns the automaton of a pattern that is ^, then characters and classes
// without case folding (no ., no assertions), each of which takes either no character
// beyond ASCII or all of them, then $; nil for any other pattern, for one whose classes of
// all such characters are not repeated as buildDFA needs, or for one that needs more than
// maxDFAStates states.
func compileDFA(expr string) *byteDFA {
	// The flags regexp.Compile parses with: ^ and $ are the start and end of the text.
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 ||
		re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return nil
	}
	// The inside, matched against the whole text.
	inside := &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1 : len(re.Sub)-1]}
	if len(inside.Sub) == 0 {
		inside = &syntax.Regexp{Op: syntax.OpEmptyMatch}
	}
	prog, err := syntax.Compile(inside)
	if err != nil || !supported(prog) {
		return nil
	}
	return buildDFA(prog)
}

// supported reports whether every instruction of prog is one buildDFA understands, and
// every character class takes either no character beyond ASCII or all of them.
func supported(prog *syntax.Prog) bool {
	for i := range prog.Inst {
		switch in := &prog.Inst[i]; in.Op {
		case syntax.InstAlt, syntax.InstAltMatch, syntax.InstCapture, syntax.InstNop, syntax.InstMatch, syntax.InstFail:
		case syntax.InstRune1:
			if in.Rune[0] >= 128 || syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				return false
			}
		case syntax.InstRune:
			// Case folding can reach beyond ASCII (k folds to the Kelvin sign).
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 || len(in.Rune)%2 != 0 {
				return false
			}
			if in.Rune[len(in.Rune)-1] >= 128 && !takesAllHigh(in) {
				return false
			}
		default: // . (InstRuneAny...), assertions (InstEmptyWidth)
			return false
		}
	}
	return true
}

// takesAllHigh reports whether the class of in (sorted ranges) holds every character from
// U+0080 to U+10FFFF, as \S and [^...] of ASCII characters do.
func takesAllHigh(in *syntax.Inst) bool {
	next := rune(0x80) // the first character not yet known to be held
	for i := 0; i < len(in.Rune); i += 2 {
		lo, hi := in.Rune[i], in.Rune[i+1]
		if hi < next {
			continue
		}
		if lo > next {
			return false
		}
		next = hi + 1
	}
	return next > unicode.MaxRune
}

// buildDFA is the subset construction over prog: each state is the set of instructions
// (characters to consume, or the match) the threads can be at. Bytes that every
// instruction treats alike share one column of work: a UUID's automaton looks at 5 kinds of
// byte, not 128. Bytes from 0x80 up are one more kind, taken by the classes that hold every
// character beyond ASCII; a character of several such bytes is then several steps where
// regexp takes one, so the automaton is only returned when that changes nothing: wherever
// such a byte leads, another one stays (as in \S+, not \S{2}).
func buildDFA(prog *syntax.Prog) *byteDFA {
	n := len(prog.Inst)
	words := (n + 63) / 64
	type set []uint64
	has := func(s set, pc uint32) bool { return s[pc/64]&(1<<(pc%64)) != 0 }
	consumes := func(pc uint32) bool {
		op := prog.Inst[pc].Op
		return op == syntax.InstRune || op == syntax.InstRune1
	}
	// closure adds pc and what it reaches without consuming to s.
	var stack []uint32
	closure := func(s set, pc uint32) {
		stack = append(stack[:0], pc)
		for len(stack) > 0 {
			pc := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if has(s, pc) {
				continue
			}
			s[pc/64] |= 1 << (pc % 64)
			switch in := &prog.Inst[pc]; in.Op {
			case syntax.InstAlt, syntax.InstAltMatch:
				stack = append(stack, in.Out, in.Arg)
			case syntax.InstCapture, syntax.InstNop:
				stack = append(stack, in.Out)
			}
		}
	}
	// key names a set by its consuming and matching instructions: what decides its future.
	key := func(s set) string {
		b := make([]byte, 0, n)
		for pc := range uint32(n) {
			if has(s, pc) && (consumes(pc) || prog.Inst[pc].Op == syntax.InstMatch) {
				b = append(b, byte(pc), byte(pc>>8), byte(pc>>16))
			}
		}
		return string(b)
	}
	// Bytes that the same consuming instructions accept form a class; rep[k] is one of
	// class k's bytes.
	var classOf [128]int
	var rep []rune
	classes := map[string]int{}
	for c := range rune(128) {
		var sig []byte
		for pc := range uint32(n) {
			if consumes(pc) && prog.Inst[pc].MatchRune(c) {
				sig = append(sig, byte(pc), byte(pc>>8), byte(pc>>16))
			}
		}
		k, ok := classes[string(sig)]
		if !ok {
			k = len(rep)
			classes[string(sig)] = k
			rep = append(rep, c)
		}
		classOf[c] = k
	}

	// takesHigh[pc]: the instruction consumes any byte from 0x80 up.
	takesHigh := make([]bool, n)
	for pc := range uint32(n) {
		takesHigh[pc] = consumes(pc) && prog.Inst[pc].Op == syntax.InstRune && takesAllHigh(&prog.Inst[pc])
	}
	d := &byteDFA{next: make([][128]uint16, 2), high: make([]uint16, 2), accept: make([]bool, 2)}
	start := make(set, words)
	closure(start, uint32(prog.Start))
	ids := map[string]uint16{"": 0, key(start): 1}
	states := []set{nil, start}
	byClass := make([]uint16, len(rep))
	for st := 1; st < len(states); st++ {
		for pc := range uint32(n) {
			if has(states[st], pc) && prog.Inst[pc].Op == syntax.InstMatch {
				d.accept[st] = true
			}
		}
		// step is the state after a byte taken by the instructions for which takes is true.
		step := func(takes func(pc uint32) bool) (uint16, bool) {
			next := make(set, words)
			for pc := range uint32(n) {
				if has(states[st], pc) && takes(pc) {
					closure(next, prog.Inst[pc].Out)
				}
			}
			nk := key(next)
			id, seen := ids[nk]
			if !seen {
				if len(states) == maxDFAStates {
					return 0, false
				}
				id = uint16(len(states))
				ids[nk] = id
				states = append(states, next)
				d.next = append(d.next, [128]uint16{})
				d.high = append(d.high, 0)
				d.accept = append(d.accept, false)
			}
			return id, true
		}
		for k, c := range rep {
			id, ok := step(func(pc uint32) bool { return consumes(pc) && prog.Inst[pc].MatchRune(c) })
			if !ok {
				return nil
			}
			byClass[k] = id
		}
		for c := range d.next[st] {
			d.next[st][c] = byClass[classOf[c]]
		}
		id, ok := step(func(pc uint32) bool { return takesHigh[pc] })
		if !ok {
			return nil
		}
		d.high[st] = id
	}
	for st, h := range d.high {
		if st != 0 && h != 0 && d.high[h] != h {
			return nil // a character beyond ASCII would count as many as it has bytes
		}
	}
	return d
}

// uuidFormat is the "uuid" format validator: uuidPattern, with kin's own message.
func uuidFormat() openapi3.StringFormatValidator {
	p, err := compilePattern(uuidPattern)
	if err != nil || p.dfa == nil {
		panic(fmt.Sprintf("validate: uuid pattern %q: %v", uuidPattern, err))
	}
	return openapi3.NewCallbackValidator(func(s string) error {
		if !p.MatchString(s) {
			// As openapi3.NewRegexpFormatValidator words it.
			return fmt.Errorf(`string doesn't match pattern "%s"`, p)
		}
		return nil
	})
}

// emailFormat is the "email" format validator: one bare address, as net/mail reads it
// (name@example.com, not "Jenny <name@example.com>" nor text with no @), the rule the
// accounts API's hosted form holds contact emails to.
func emailFormat() openapi3.StringFormatValidator {
	return openapi3.NewCallbackValidator(func(s string) error {
		if addr, err := mail.ParseAddress(s); err != nil || addr.Name != "" || addr.Address != s {
			return errors.New("not an email address such as name@example.com")
		}
		return nil
	})
}
