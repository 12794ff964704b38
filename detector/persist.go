package detector

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/kernelad/anomaly/detector/internal/kit"
	"hash/crc32"
	"io"
	"os"
)

// envelopeFormat is the version of the model file layout written by Save.
// Format 2 added the Base section (scale stage, threshold); Load reads
// only this format. The header's optional "columns" (the names of the
// fitted columns, see SetColumns) came later within format 2: a loader
// that predates it ignores the field, as encoding/json does unknown keys,
// and this one reads files without it as models without names.
const envelopeFormat = 2

// Limits that keep Load from allocating without bound on a hostile file.
const (
	maxHeader = 64 << 20 // bytes of JSON header (the column names of a wide model; 1 MiB before they were kept)
	maxState  = 1 << 36  // bytes of a state section (64 GiB); read incrementally
)

type header struct {
	Format  int      `json:"format"`
	Method  string   `json:"method"`
	Version int      `json:"version"`
	Params  paramMap `json:"params"`
	// Columns names the fitted columns (SetColumns); absent when the
	// data had no names, and in files written before names were kept.
	Columns columnNames `json:"columns,omitempty"`
}

// maxParams bounds the parameters a model file's header may list: a
// method declares a few dozen, and a crafted header of 2,000,000 (26 MB)
// held 300 MB while it was decoded into a map.
const maxParams = 1000

// paramMap is the header's parameters, decoded with a bound on their
// count that is checked before the map is built.
type paramMap map[string]string

func (p *paramMap) UnmarshalJSON(b []byte) error {
	if n := countKeys(b); n > maxParams {
		return &tooManyParams{n}
	}
	m := map[string]string{}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*p = m
	return nil
}

// tooManyParams is the error of a header that lists more than maxParams
// parameters.
type tooManyParams struct{ n int }

func (e *tooManyParams) Error() string {
	return fmt.Sprintf("the header lists %d parameters, more than any method has (%d)", e.n, maxParams)
}

// countKeys returns the number of members of the JSON object b (the
// colons at its top level, outside strings), without decoding it.
func countKeys(b []byte) int {
	n, depth, inString, escaped := 0, 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ':' && depth == 1:
			n++
		}
	}
	return n
}

// kitModel is what this package needs of a detector built on package
// detector/method's Base, which every method embeds: Save and Load, the
// column names and Describe go through it.
type kitModel interface {
	Detector
	// Describe returns the method's name and resolved parameters.
	Describe() (method string, params map[string]string)
	// Warning is the fitted model's warning, or "".
	Warning() string
	// Columns and SetColumns are the names of the fitted columns.
	Columns() []string
	SetColumns(names []string) error
	// MarshalModel returns one fitted model's column names and the two
	// sections of its saved state: the shared part (scale stage,
	// threshold) and the method's own; ErrNotFitted before a fit.
	MarshalModel() (columns []string, shared, state []byte, err error)
	// UnmarshalModel installs a model read back from those sections.
	UnmarshalModel(columns []string, shared, state []byte) error
}

// Save writes a fitted detector in the versioned envelope: its method name
// and the parameters it was built with (both from the detector itself, so
// a model cannot be saved under another name or other parameters), the
// shared state of its Base and the method's own state (MarshalBinary).
func Save(w io.Writer, d Detector) error {
	var (
		method    string
		params    map[string]string
		columns   []string
		bs, state []byte
		err       error
	)
	km, ok := d.(kitModel)
	if !ok {
		return fmt.Errorf("save: %T was not built by a registered method (New or Load)", d)
	}
	method, params = km.Describe()
	if columns, bs, state, err = km.MarshalModel(); err != nil {
		if errors.Is(err, ErrNotFitted) {
			return err
		}
		return fmt.Errorf("save %s: %w", method, err)
	}
	m, ok := Lookup(method)
	if !ok {
		return fmt.Errorf("save: method %q is not registered", method)
	}
	h, err := json.Marshal(header{Format: envelopeFormat, Method: method, Version: m.Version, Params: paramMap(params), Columns: columns})
	if err != nil {
		return fmt.Errorf("save: %w", err)
	}
	if len(h) > maxHeader { // SetColumns keeps the names within it
		return fmt.Errorf("save: the model's header takes %d bytes, more than the %d a model file holds", len(h), maxHeader)
	}
	crc := crc32.NewIEEE()
	bw := bufio.NewWriter(w)
	out := io.MultiWriter(bw, crc)
	var n8 [8]byte
	io.WriteString(out, kit.Magic)
	binary.LittleEndian.PutUint32(n8[:4], uint32(len(h)))
	out.Write(n8[:4])
	out.Write(h)
	for _, sec := range [][]byte{bs, state} {
		binary.LittleEndian.PutUint64(n8[:], uint64(len(sec)))
		out.Write(n8[:])
		out.Write(sec)
	}
	binary.LittleEndian.PutUint32(n8[:4], crc.Sum32())
	bw.Write(n8[:4])
	return bw.Flush()
}

// Load reads a model written by Save and returns the fitted detector
// (Describe gives its method and parameters). A truncated, corrupt or
// other-version file is an error.
func Load(r io.Reader) (Detector, error) {
	crc := crc32.NewIEEE()
	tr := io.TeeReader(bufio.NewReader(r), crc)
	corrupt := func(what string) error { return fmt.Errorf("%w: %s", ErrCorrupt, what) }

	mg := make([]byte, len(kit.Magic))
	if _, err := io.ReadFull(tr, mg); err != nil || string(mg) != kit.Magic {
		return nil, corrupt("missing the model header (is this a model written by 'anomaly fit'?)")
	}
	var n8 [8]byte
	if _, err := io.ReadFull(tr, n8[:4]); err != nil {
		return nil, corrupt("truncated header")
	}
	hl := binary.LittleEndian.Uint32(n8[:4])
	if hl > maxHeader {
		return nil, corrupt(fmt.Sprintf("header length %d exceeds %d bytes", hl, maxHeader))
	}
	// The header and the sections grow as bytes arrive, so a lying
	// length cannot allocate; but where the source's size is known (a
	// file, a bytes.Reader) a length within it is allocated at once:
	// grown by doubling, a 1.8 GB section held up to 3.5 GB and copied
	// its bytes once per doubling.
	size := int64(-1)
	switch v := r.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	case interface{ Size() int64 }:
		size = v.Size()
	}
	read := func(buf *bytes.Buffer, n uint64) (int64, error) {
		if int64(n) <= size {
			// ReadFrom wants MinRead bytes free before every read,
			// the last one (which meets the end) included.
			buf.Grow(int(n) + bytes.MinRead)
		}
		return io.CopyN(buf, tr, int64(n))
	}
	var hb bytes.Buffer
	if _, err := read(&hb, uint64(hl)); err != nil {
		return nil, corrupt("truncated header")
	}
	var h header
	if err := json.Unmarshal(hb.Bytes(), &h); err != nil {
		var tooMany *tooManyParams
		if errors.As(err, &tooMany) {
			return nil, corrupt(tooMany.Error())
		}
		return nil, corrupt("unreadable header")
	}
	hb = bytes.Buffer{}
	if h.Format != envelopeFormat {
		return nil, fmt.Errorf("model file format %d is not supported by this build (it reads format %d; refit the model)", h.Format, envelopeFormat)
	}
	var sections [2]bytes.Buffer
	for i, what := range []string{"shared state", "model state"} {
		if _, err := io.ReadFull(tr, n8[:]); err != nil {
			return nil, corrupt("truncated before the " + what)
		}
		sl := binary.LittleEndian.Uint64(n8[:])
		if sl > maxState {
			return nil, corrupt(fmt.Sprintf("%s length %d is implausible", what, sl))
		}
		if n, err := read(&sections[i], sl); err != nil {
			return nil, corrupt(fmt.Sprintf("truncated %s (%d of %d bytes)", what, n, sl))
		}
	}
	sum := crc.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(tr, tail[:]); err != nil {
		return nil, corrupt("truncated: missing checksum")
	}
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return nil, corrupt("checksum mismatch (the file is damaged)")
	}
	if n, _ := io.ReadFull(tr, tail[:1]); n > 0 {
		// The model ends at its checksum: more is two files joined or
		// bytes appended, and loading the first model would hide it.
		return nil, corrupt("more data follow the model's checksum (files joined, or bytes appended)")
	}
	m, ok := Lookup(h.Method)
	if !ok {
		return nil, fmt.Errorf("model was written by method %q, which this build does not have", h.Method)
	}
	if h.Version != m.Version {
		return nil, fmt.Errorf("model of method %s has state version %d; this build reads version %d (refit the model)", h.Method, h.Version, m.Version)
	}
	e, _ := kit.Lookup(h.Method)
	det, err := build(e, h.Params, nil)
	if err != nil {
		return nil, fmt.Errorf("model parameters: %w", err)
	}
	km, ok := det.(kitModel)
	if !ok {
		return nil, fmt.Errorf("method %s cannot be loaded (its detector does not embed method.Base)", h.Method)
	}
	if err := km.UnmarshalModel(h.Columns, sections[0].Bytes(), sections[1].Bytes()); err != nil {
		return nil, corrupt(fmt.Sprintf("method %s %v", h.Method, err))
	}
	return det, nil
}
