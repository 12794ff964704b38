package detector

import (
	"bufio"
	"bytes"
	"encoding"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// EnvelopeFormat is the version of the model file layout written by Save.
const EnvelopeFormat = 1

const magic = "ANOMALY-MODEL\n"

// Limits that keep Load from allocating without bound on a hostile file.
const (
	maxHeader = 1 << 20 // bytes of JSON header
	maxState  = 1 << 36 // bytes of method state (64 GiB); read incrementally
)

type header struct {
	Format  int               `json:"format"`
	Method  string            `json:"method"`
	Version int               `json:"version"`
	Params  map[string]string `json:"params"`
}

// Save writes a fitted detector in the versioned envelope. name must be the
// registered method name and params the parameters it was built with; d must
// implement encoding.BinaryMarshaler.
func Save(w io.Writer, name string, params map[string]string, d Detector) error {
	m, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("save: unknown method %q", name)
	}
	bm, ok := d.(encoding.BinaryMarshaler)
	if !ok {
		return fmt.Errorf("save: method %s cannot be saved (no MarshalBinary)", name)
	}
	state, err := bm.MarshalBinary()
	if err != nil {
		return fmt.Errorf("save %s: %w", name, err)
	}
	h, err := json.Marshal(header{Format: EnvelopeFormat, Method: name, Version: m.Version, Params: params})
	if err != nil {
		return fmt.Errorf("save: %w", err)
	}
	crc := crc32.NewIEEE()
	bw := bufio.NewWriter(w)
	out := io.MultiWriter(bw, crc)
	var n8 [8]byte
	io.WriteString(out, magic)
	binary.LittleEndian.PutUint32(n8[:4], uint32(len(h)))
	out.Write(n8[:4])
	out.Write(h)
	binary.LittleEndian.PutUint64(n8[:], uint64(len(state)))
	out.Write(n8[:])
	out.Write(state)
	binary.LittleEndian.PutUint32(n8[:4], crc.Sum32())
	bw.Write(n8[:4])
	return bw.Flush()
}

// ErrCorrupt is wrapped by Load's errors for files that are not intact model
// files.
var ErrCorrupt = errors.New("not a valid model file")

// Load reads a model written by Save and returns the method name, its
// parameters and the fitted detector. A truncated, corrupt or other-version
// file is an error.
func Load(r io.Reader) (name string, params map[string]string, d Detector, err error) {
	crc := crc32.NewIEEE()
	tr := io.TeeReader(bufio.NewReader(r), crc)
	corrupt := func(what string) error { return fmt.Errorf("%w: %s", ErrCorrupt, what) }

	mg := make([]byte, len(magic))
	if _, err := io.ReadFull(tr, mg); err != nil || string(mg) != magic {
		return "", nil, nil, corrupt("missing the model header (is this a model written by 'anomaly fit'?)")
	}
	var n8 [8]byte
	if _, err := io.ReadFull(tr, n8[:4]); err != nil {
		return "", nil, nil, corrupt("truncated header")
	}
	hl := binary.LittleEndian.Uint32(n8[:4])
	if hl > maxHeader {
		return "", nil, nil, corrupt(fmt.Sprintf("header length %d exceeds %d bytes", hl, maxHeader))
	}
	hb := make([]byte, hl)
	if _, err := io.ReadFull(tr, hb); err != nil {
		return "", nil, nil, corrupt("truncated header")
	}
	if _, err := io.ReadFull(tr, n8[:]); err != nil {
		return "", nil, nil, corrupt("truncated before the model state")
	}
	sl := binary.LittleEndian.Uint64(n8[:])
	if sl > maxState {
		return "", nil, nil, corrupt(fmt.Sprintf("state length %d is implausible", sl))
	}
	var state bytes.Buffer // grows as bytes arrive, so a lying length cannot allocate
	if n, err := io.CopyN(&state, tr, int64(sl)); err != nil {
		return "", nil, nil, corrupt(fmt.Sprintf("truncated model state (%d of %d bytes)", n, sl))
	}
	sum := crc.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(tr, tail[:]); err != nil {
		return "", nil, nil, corrupt("truncated: missing checksum")
	}
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return "", nil, nil, corrupt("checksum mismatch (the file is damaged)")
	}
	var h header
	if err := json.Unmarshal(hb, &h); err != nil {
		return "", nil, nil, corrupt("unreadable header")
	}
	if h.Format != EnvelopeFormat {
		return "", nil, nil, fmt.Errorf("model file format %d is not supported by this build (it reads format %d)", h.Format, EnvelopeFormat)
	}
	m, ok := Lookup(h.Method)
	if !ok {
		return "", nil, nil, fmt.Errorf("model was written by method %q, which this build does not have", h.Method)
	}
	if h.Version != m.Version {
		return "", nil, nil, fmt.Errorf("model of method %s has state version %d; this build reads version %d (refit the model)", h.Method, h.Version, m.Version)
	}
	det, err := m.New(NewParams(h.Method, h.Params))
	if err != nil {
		return "", nil, nil, fmt.Errorf("model parameters: %w", err)
	}
	bu, ok := det.(encoding.BinaryUnmarshaler)
	if !ok {
		return "", nil, nil, fmt.Errorf("method %s cannot be loaded (no UnmarshalBinary)", h.Method)
	}
	if err := bu.UnmarshalBinary(state.Bytes()); err != nil {
		return "", nil, nil, corrupt(fmt.Sprintf("method %s state: %v", h.Method, err))
	}
	return h.Method, h.Params, det, nil
}
