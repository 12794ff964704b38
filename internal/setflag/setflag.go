package setflag

import (
	"fmt"
	"strings"
)

// Parse turns repeated --set key=value flags into a parameter map. Keys and
// values are trimmed of spaces; values keep their text otherwise (commas
// included: --set shape=24,51). A flag without '=', with an empty key, or
// repeating a key is an error.
func Parse(sets []string) (map[string]string, error) {
	m := make(map[string]string, len(sets))
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("--set %q: want key=value, as in --set gamma=0.5", s)
		}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("--set %s is given twice", k)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m, nil
}

// Add adds to m the parameter key that a dedicated flag (such as --seed)
// gives as val; it is an error when m holds key already, from a --set.
func Add(m map[string]string, key, val, flag string) error {
	if _, dup := m[key]; dup {
		return fmt.Errorf("%s and --set %s both given; give it once", flag, key)
	}
	m[key] = val
	return nil
}
