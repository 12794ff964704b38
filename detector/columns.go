package detector

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Column names. A matrix has no column names, so Fit cannot record them
// as scikit-learn's fit records feature_names_in_; the caller that read
// the data (a CSV header, ARFF attributes) gives them to SetColumns after
// Fit, Save keeps them in the model file's header and Load restores them.
// Before applying a model to named data, CheckColumns compares the names,
// as scikit-learn's predict does: the rows of a file whose columns are
// the model's in another order, or other columns of the same count, would
// otherwise be scored without complaint and the scores would be wrong.
// Either side without names is not checked.

// maxColumnsJSON bounds the bytes of the column names in a model file's
// header (as JSON): 10⁶ names of 60 characters fit. It leaves 1 MiB of
// maxHeader to the rest of the header.
const maxColumnsJSON = maxHeader - 1<<20

// SetColumns records the names of the columns a fitted detector was
// fitted on; Save writes them with the model and CheckColumns compares
// data with them. There must be one name per column; nil forgets the
// names. A fit forgets them too: they name the data of the fit that
// comes before SetColumns. Names are kept as valid UTF-8, each invalid
// byte replaced by U+FFFD as in the model file (CheckColumns compares the
// data's names the same way). Names that take more bytes than a model
// file's header holds are an error wrapping ErrColumnsTooLong, and are
// not recorded.
func SetColumns(d Detector, names []string) error {
	km, ok := d.(kitModel)
	if !ok {
		return fmt.Errorf("detector: %T was not built by a registered method (New or Load)", d)
	}
	if names == nil {
		return km.SetColumns(nil)
	}
	cols := make([]string, len(names))
	size := 1 // the bytes of the names as Save writes them: [, names and commas, ]
	for i, n := range names {
		cols[i] = validUTF8(n)
		size += jsonLen(cols[i]) + 1
	}
	if size > maxColumnsJSON {
		return fmt.Errorf("%w: they take %d bytes, and a model file holds %d", ErrColumnsTooLong, size, maxColumnsJSON)
	}
	return km.SetColumns(cols)
}

// jsonLen returns the length of s encoded by encoding/json. Most names
// are printable ASCII that it writes as they are, in quotes; the others
// are encoded to be measured (encoding all of them at once, 69 MB of
// names took 170 MB more at the peak of a fit).
func jsonLen(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s) // a string always encodes
			return len(j)
		}
	}
	return len(s) + 2
}

// ColumnsError reports data whose column names differ from those the
// model was fitted on. Index is the zero-based column of the first
// difference; Reordered is set when the names are the model's in another
// order.
type ColumnsError struct {
	Got, Want []string
	Index     int
	Reordered bool
	// Numbers, when set, holds the column number of each of Got as the
	// data's file counts its columns (dataset.Dataset.ColumnNumbers: a
	// label or an index column before the features shifts them); nil
	// numbers them 1, 2, … as the matrix's columns.
	Numbers []int
}

func (e *ColumnsError) Error() string {
	i, got, want := e.Index, e.Got, e.Want
	col := i + 1 // the data's column i as its file numbers it
	if i < len(e.Numbers) && len(e.Numbers) == len(got) {
		col = e.Numbers[i]
	}
	if len(got) != len(want) {
		var first string
		switch {
		case i < len(got) && i < len(want):
			first = fmt.Sprintf("column %d is %s but the model was fitted on %s", col, quoteName(got[i]), quoteName(want[i]))
		case i < len(got):
			first = fmt.Sprintf("column %d, %s, is not one the model was fitted on", col, quoteName(got[i]))
		default:
			first = fmt.Sprintf("the model's column %d, %s, is missing", i+1, quoteName(want[i]))
		}
		cols := "columns"
		if len(got) == 1 {
			cols = "column"
		}
		return fmt.Sprintf("wrong feature count: data has %d %s (%s), the model was fitted on %d (%s): %s",
			len(got), cols, listNames(got), len(want), listNames(want), first)
	}
	mismatch := fmt.Sprintf("column %d is %s but the model was fitted on %s (columns %s)", col, quoteName(got[i]), quoteName(want[i]), listNames(want))
	if e.Reordered {
		return "the columns are the model's in another order: " + mismatch + "; give the columns in the fit's order"
	}
	return mismatch + ": give the columns in the fit's order and names"
}

// CheckColumns compares names, the column names of data to be scored,
// with those d was fitted on (SetColumns): a *ColumnsError when both are
// known and differ, nil otherwise (either side without names is not
// checked, as scikit-learn only warns then).
func CheckColumns(d Detector, names []string) error {
	if len(names) == 0 {
		return nil
	}
	km, ok := d.(kitModel)
	if !ok {
		return nil
	}
	want := km.Columns()
	if len(want) == 0 {
		return nil
	}
	i := 0
	for i < len(names) && i < len(want) && validUTF8(names[i]) == want[i] {
		i++
	}
	if i == len(names) && i == len(want) {
		return nil
	}
	got := make([]string, len(names))
	for k, n := range names {
		got[k] = validUTF8(n)
	}
	e := &ColumnsError{Got: got, Want: want, Index: i}
	if len(got) == len(want) {
		a, b := slices.Clone(got), slices.Clone(want)
		slices.Sort(a)
		slices.Sort(b)
		e.Reordered = slices.Equal(a, b)
	}
	return e
}

// validUTF8 returns s with each byte that is not part of valid UTF-8
// replaced by U+FFFD, as encoding/json writes a string: a name read back
// from a model file is then equal to the name of the data it came from.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Names in messages: at most maxListed of a list, each cut to maxNameRunes.
const (
	maxListed    = 10
	maxNameRunes = 40
)

// quoteName is name quoted for a message, cut short when long.
func quoteName(name string) string {
	return strconv.Quote(clipName(name))
}

func clipName(name string) string {
	if utf8.RuneCountInString(name) <= maxNameRunes {
		return name
	}
	r := []rune(name)
	return string(r[:maxNameRunes-1]) + "…"
}

// listNames lists names for a message, bare where a name reads plainly
// (printable, no comma, quote or space) and quoted otherwise; a long list
// shows its first and last names and its length.
func listNames(names []string) string {
	show := func(n string) string {
		plain := n != ""
		for _, r := range n {
			if !unicode.IsGraphic(r) || unicode.IsSpace(r) || r == ',' || r == '"' {
				plain = false
				break
			}
		}
		if plain {
			return clipName(n)
		}
		return quoteName(n)
	}
	var parts []string
	if len(names) <= maxListed {
		for _, n := range names {
			parts = append(parts, show(n))
		}
		return strings.Join(parts, ", ")
	}
	for _, n := range names[:maxListed-2] {
		parts = append(parts, show(n))
	}
	parts = append(parts, "…", show(names[len(names)-1]))
	return strings.Join(parts, ", ") + fmt.Sprintf(" (%d in all)", len(names))
}

// columnNames is the header's list of column names. It decodes leaner
// than encoding/json decodes a []string, which took about 100 bytes per
// name (a million names: 108 MB to load a 12 MB model file, 9× its size
// where the load budget plans for 4×): the slice is made at its final
// length, and names without escapes share one copy of the list's text.
type columnNames []string

// UnmarshalJSON decodes b, a JSON value (json.Unmarshal has checked it is
// valid JSON): null or an array of strings.
func (c *columnNames) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = nil
		return nil
	}
	notStrings := errors.New("column names: want an array of strings")
	// Pass 1 counts the names and checks every element is a string;
	// pass 2 takes them.
	walk := func(take func(i, j int, plain bool) error) error {
		i := skipSpace(b, 0)
		if i >= len(b) || b[i] != '[' {
			return notStrings
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return nil
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return notStrings
			}
			j, plain := i+1, true
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					plain = false
					j++
				}
				j++
			}
			if j >= len(b) {
				return notStrings
			}
			// b[i:j+1] is the literal, quotes included.
			if err := take(i, j, plain && utf8.Valid(b[i+1:j])); err != nil {
				return err
			}
			i = skipSpace(b, j+1)
			if i < len(b) && b[i] == ']' {
				return nil
			}
			if i >= len(b) || b[i] != ',' {
				return notStrings
			}
			i = skipSpace(b, i+1)
		}
	}
	n := 0
	if err := walk(func(int, int, bool) error { n++; return nil }); err != nil {
		return err
	}
	text := string(b) // one copy, which the plain names share
	out := make([]string, 0, n)
	err := walk(func(i, j int, plain bool) error {
		if plain {
			out = append(out, text[i+1:j])
			return nil
		}
		var s string
		if err := json.Unmarshal(b[i:j+1], &s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return err
	}
	*c = out
	return nil
}

// skipSpace returns the index of the first byte of b from i on that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
