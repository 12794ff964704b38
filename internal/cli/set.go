package cli

import "strings"

// parseSet turns repeated --set key=value flags into a parameter map. A
// flag without '=', with an empty key, or repeating a key is a usage error.
// Values keep their text (commas included: --set shape=24,51).
func parseSet(sets []string) (map[string]string, error) {
	m := make(map[string]string, len(sets))
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, usagef("--set %q: want key=value, as in --set gamma=0.5", s)
		}
		if _, dup := m[k]; dup {
			return nil, usagef("--set %s is given twice", k)
		}
		m[k] = strings.TrimSpace(v)
	}
	return m, nil
}

// addParam adds a parameter that a dedicated flag gives (--seed,
// --contamination, --shape); giving it with --set as well is a usage error.
func addParam(m map[string]string, key, val, flag string) error {
	if _, dup := m[key]; dup {
		return usagef("%s and --set %s both given; give it once", flag, key)
	}
	m[key] = val
	return nil
}
