package accounts

import (
	"maps"
	"slices"
	"strings"

	json "github.com/goccy/go-json"
)

// Members the server keeps as sent (Account.Details, Person.Details, Token.Details) are
// JSON trees: the validator has already held them to the spec, so the server stores them
// as they are and returns them through the response types, rather than copying each of
// several hundred members by hand (which would be the same rule written once per member).

// treeOf is the JSON tree of a request body (a generated type): members left out are
// absent, members sent as null are nil.
func treeOf(v any) map[string]any {
	raw, err := json.Marshal(v)
	if err != nil {
		return map[string]any{}
	}
	var out map[string]any
	if json.Unmarshal(raw, &out) != nil || out == nil {
		return map[string]any{}
	}
	return out
}

// objectOf is the generated type a JSON tree makes (an object the tree describes).
func objectOf[T any](tree any) (T, error) {
	var out T
	raw, err := json.Marshal(tree)
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	return out, err
}

// convert fills out, an object type, from in, a request type whose members are out's: a
// JSON round trip, so that a member both types have is copied without code of its own.
func convert(in, out any) error {
	raw, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// mergeTree applies an update's tree to dst, as v2 updates do: a member sent as null is
// removed, an object is merged member by member, anything else (a string, a list) replaces
// the stored value. It returns dst, made when nil. src is left as it is: dst takes copies
// of its objects.
func mergeTree(dst, src map[string]any) map[string]any { return mergeTreeExcept(dst, src) }

// mergeTreeExcept is mergeTree but for src's members named in skip, which dst does not
// take.
func mergeTreeExcept(dst, src map[string]any, skip ...string) map[string]any {
	if dst == nil {
		dst = map[string]any{}
	}
	for k, v := range src {
		if slices.Contains(skip, k) {
			continue
		}
		switch v := v.(type) {
		case nil:
			delete(dst, k)
		case map[string]any:
			cur, _ := dst[k].(map[string]any)
			merged := mergeTree(cloneTree(cur), v)
			if len(merged) == 0 {
				delete(dst, k)
			} else {
				dst[k] = merged
			}
		default:
			dst[k] = v
		}
	}
	return dst
}

// cloneTree copies a tree deeply enough that merging into the copy leaves the original
// (a record read from the store) untouched.
func cloneTree(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		if sub, ok := v.(map[string]any); ok {
			out[k] = cloneTree(sub)
		}
	}
	return out
}

// dig reads the member at a dotted path of a tree (nil when absent).
func dig(tree map[string]any, path string) any {
	for {
		head, rest, nested := strings.Cut(path, ".")
		if !nested {
			return tree[head]
		}
		sub, ok := tree[head].(map[string]any)
		if !ok {
			return nil
		}
		tree, path = sub, rest
	}
}

// digString is the string at a path, "" when absent or not a string.
func digString(tree map[string]any, path string) string {
	s, _ := dig(tree, path).(string)
	return s
}

// setPath writes v at a dotted path of tree, making the objects on the way.
func setPath(tree map[string]any, path string, v any) {
	for {
		head, rest, nested := strings.Cut(path, ".")
		if !nested {
			tree[head] = v
			return
		}
		next, ok := tree[head].(map[string]any)
		if !ok {
			next = map[string]any{}
			tree[head] = next
		}
		tree, path = next, rest
	}
}

// deletePath removes the member at a dotted path of tree, and the objects on the way that
// it leaves empty.
func deletePath(tree map[string]any, path string) {
	head, rest, nested := strings.Cut(path, ".")
	if !nested {
		delete(tree, head)
		return
	}
	sub, ok := tree[head].(map[string]any)
	if !ok {
		return
	}
	deletePath(sub, rest)
	if len(sub) == 0 {
		delete(tree, head)
	}
}

// take removes and returns a member of a tree.
func take(tree map[string]any, key string) (any, bool) {
	v, ok := tree[key]
	delete(tree, key)
	return v, ok
}
