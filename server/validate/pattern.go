package validate

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// pattern is a compiled schema pattern. A pattern anchored at both ends (^...$) whose
// inside matches only ASCII (a UUID: ^[0-9a-fA-F]{8}-...$, a name:
// ^[a-z]([-a-z0-9]*[a-z0-9])?$, an id: ^acct_[A-Za-z0-9]{16,64}$) is matched by a
// deterministic automaton over bytes, one table lookup per byte, without regexp: for a
// UUID that is about 40 times fewer instructions than regexp's one-pass matcher, and names
// skip regexp's backtracker. Any other pattern is regexp's. Both accept exactly the same
// strings (TestPatternMatchesRegexp, FuzzPattern).
type pattern struct {
	re  *regexp.Regexp
	dfa *asciiDFA // when not nil: matches what re matches
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
	p, _ := compiled.LoadOrStore(expr, &pattern{re: re, dfa: compileASCII(expr)})
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

// asciiDFA is a deterministic automaton over ASCII bytes that must consume the whole text.
// State 0 is dead (nothing can match any more); state 1 is the start.
type asciiDFA struct {
	next   [][128]uint16 // next[state][byte]
	accept []bool        // accept[state]: the text may end here
}

func matchDFA[S string | []byte](d *asciiDFA, s S) bool {
	st := uint16(1)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 128 {
			// Only ASCII can match: a byte from 128 up starts a rune that is not (or is
			// invalid UTF-8, which regexp reads as U+FFFD).
			return false
		}
		if st = d.next[st][c]; st == 0 {
			return false
		}
	}
	return d.accept[st]
}

// maxDFAStates bounds an automaton; patterns that would need more stay with regexp. The
// specs' largest (^acct_[A-Za-z0-9]{16,64}$) needs 71.
const maxDFAStates = 256

// compileASCII returns the automaton of a pattern that is ^, then anything that matches
// ASCII characters only (no case folding, no . or negated classes, no assertions), then $;
// nil for any other pattern, or one that needs more than maxDFAStates states.
func compileASCII(expr string) *asciiDFA {
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
	if err != nil || !asciiOnly(prog) {
		return nil
	}
	return buildDFA(prog)
}

// asciiOnly reports whether every instruction of prog is one buildDFA understands and
// every character it can consume is ASCII.
func asciiOnly(prog *syntax.Prog) bool {
	for _, in := range prog.Inst {
		switch in.Op {
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
			for i := 1; i < len(in.Rune); i += 2 {
				if in.Rune[i] >= 128 {
					return false
				}
			}
		default: // . and negated classes (InstRuneAny...), assertions (InstEmptyWidth)
			return false
		}
	}
	return true
}

// buildDFA is the subset construction over prog: each state is the set of instructions
// (characters to consume, or the match) the threads can be at. Bytes that every
// instruction treats alike share one column of work: a UUID's automaton looks at 5 kinds of
// byte, not 128.
func buildDFA(prog *syntax.Prog) *asciiDFA {
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

	d := &asciiDFA{next: make([][128]uint16, 2), accept: make([]bool, 2)}
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
		for k, c := range rep {
			next := make(set, words)
			for pc := range uint32(n) {
				if has(states[st], pc) && consumes(pc) && prog.Inst[pc].MatchRune(c) {
					closure(next, prog.Inst[pc].Out)
				}
			}
			nk := key(next)
			id, seen := ids[nk]
			if !seen {
				if len(states) == maxDFAStates {
					return nil
				}
				id = uint16(len(states))
				ids[nk] = id
				states = append(states, next)
				d.next = append(d.next, [128]uint16{})
				d.accept = append(d.accept, false)
			}
			byClass[k] = id
		}
		for c := range d.next[st] {
			d.next[st][c] = byClass[classOf[c]]
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
