package main

import "testing"

func TestSplice(t *testing.T) {
	for _, tc := range []struct {
		doc, body, want string
		ok              bool
	}{
		{"a\n<!-- s -->\nold\n<!-- e -->\nz\n", "new", "a\n<!-- s -->\nnew\n<!-- e -->\nz\n", true},
		{"<!-- s -->\n<!-- e -->\n", "x\ny\n", "<!-- s -->\nx\ny\n<!-- e -->\n", true},
		{"<!-- s --> <!-- e -->", "x", "<!-- s -->\nx\n<!-- e -->", true},
		{"no markers\n", "x", "", false},
		{"<!-- e -->\n<!-- s -->\n", "x", "", false},
		{"<!-- s -->\n<!-- s -->\n<!-- e -->\n", "x", "", false},
	} {
		got, err := splice([]byte(tc.doc), []byte("<!-- s -->"), []byte("<!-- e -->"), []byte(tc.body))
		if (err == nil) != tc.ok || tc.ok && string(got) != tc.want {
			t.Errorf("splice(%q, %q) = %q, %v; want %q", tc.doc, tc.body, got, err, tc.want)
		}
	}
}
