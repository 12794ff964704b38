package exposebeam

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/detector/method"
)

func init() {
	registerTypes((*ScoredBlock)(nil), (*readBytesFn)(nil), (*scoreFn)(nil), (*writeScoresFn)(nil))
}

// ScoreOptions configures a distributed scoring run.
type ScoreOptions struct {
	Runner string
	// Model is a model file written by 'anomaly fit' or 'anomaly-beam fit'
	// (any method the core registry knows).
	Model string
	// Input is a glob of shards, as for FitOptions.
	Input string
	// Out is the output prefix: shard i of N is scored into
	// Out-0000i-of-0000N.csv.
	Out string
	// Label names a label column of the shards to drop ("" for none).
	Label string
	// Chunk is the number of rows per block (default 2048).
	Chunk int
}

// ScoredBlock is the scores of a Block: rows Start … Start+len(Scores)-1 of
// shard Shard, with their 0/1 labels against the model's threshold.
type ScoredBlock struct {
	Shard   int64
	Start   int64
	Scores  []float64
	Anomaly []int64
}

// ScoreFile is the name of the scores of shard i of n.
func ScoreFile(prefix string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.csv", prefix, i, n)
}

// Score runs the scoring pipeline: the model file is read once into the
// pipeline and reaches every worker as a side input; a ParDo scores each
// block of rows; the scored blocks are grouped by shard and written, in row
// order, to one CSV per shard with the header "id,score,anomaly", where the
// id is "<shard file name>:<row>" (0-based, header excluded) and the columns
// score and anomaly are those 'anomaly score' prints.
func Score(ctx context.Context, o ScoreOptions) ([]string, error) {
	if o.Model == "" || o.Input == "" || o.Out == "" {
		return nil, errors.New("exposebeam: score needs a model, an input glob and an output prefix")
	}
	raw, err := readFile(ctx, o.Model)
	if err != nil {
		return nil, err
	}
	if _, err := detector.Load(bytes.NewReader(raw)); err != nil { // fail early, in the launcher
		return nil, &DataError{Msg: fmt.Sprintf("%s: %v", o.Model, err)}
	}
	shards, err := ListShards(ctx, o.Input)
	if err != nil {
		return nil, err
	}
	chunk := o.Chunk
	if chunk < 1 {
		chunk = 2048
	}
	names := make([]string, len(shards))
	outs := make([]string, len(shards))
	inputs := []string{o.Model}
	for i, sh := range shards {
		names[i] = path.Base(sh.Path)
		outs[i] = ScoreFile(o.Out, i, len(shards))
		inputs = append(inputs, sh.Path)
	}
	// Before any work: no score file may replace a shard or the model.
	for _, out := range outs {
		if err := CheckOutput(out, inputs); err != nil {
			return nil, err
		}
	}
	// The workers write staging files; they are made final when the
	// whole pipeline has succeeded.
	staged := make([]*pending, len(outs))
	temps := make([]string, len(outs))
	defer func() {
		for _, p := range staged {
			if p != nil {
				p.discard(ctx)
			}
		}
	}()
	for i, out := range outs {
		if staged[i], err = newPending(out, ""); err != nil {
			return nil, err
		}
		temps[i] = staged[i].Temp
	}
	p, s := beam.NewPipelineWithRoot()
	model := beam.ParDo(s.Scope("ReadModel"), &readBytesFn{Path: o.Model}, beam.Impulse(s))
	blocks := Read(s, shards, o.Label, chunk)
	scored := beam.ParDo(s.Scope("Score"), &scoreFn{Paths: inputs[1:]}, blocks, beam.SideInput{Input: model})
	grouped := beam.GroupByKey(s, scored)
	beam.ParDo0(s.Scope("WriteScores"), &writeScoresFn{Files: temps, Names: names}, grouped)
	if _, err := runPipeline(ctx, o.Runner, p); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("scoring pipeline: %w", err)
	}
	// The pipeline has finished: all the score files are made final, a
	// signal no longer stops the commits halfway (some files new, some old).
	for i, p := range staged {
		if err := p.commit(context.WithoutCancel(ctx), inputs); err != nil {
			return nil, err
		}
		staged[i] = nil
	}
	return outs, nil
}

// readBytesFn emits the contents of a file.
type readBytesFn struct{ Path string }

func (f *readBytesFn) ProcessElement(ctx context.Context, _ []byte, emit func([]byte)) error {
	b, err := readFile(ctx, f.Path)
	if err != nil {
		return err
	}
	emit(b)
	return nil
}

// scoreFn scores blocks with the model given as a side input (the bytes of
// the model file), decoded once per instance. The column names of each
// shard (in its first block) are checked against the model's.
type scoreFn struct {
	Paths []string // the shards, for messages

	det detector.Detector
}

func (f *scoreFn) ProcessElement(b Block, model []byte, emit func(int64, ScoredBlock)) error {
	if f.det == nil {
		d, err := detector.Load(bytes.NewReader(model))
		if err != nil {
			return err
		}
		f.det = d
	}
	if err := detector.CheckColumns(f.det, b.Columns); err != nil {
		return &DataError{Msg: fmt.Sprintf("%s: %v", pathOf(f.Paths, int(b.Shard)), err)}
	}
	scores, err := f.det.Score(nil, b.Matrix())
	if err != nil {
		return fmt.Errorf("shard %d rows %d…: %w", b.Shard, b.Start, err)
	}
	lab := method.Label(nil, scores, f.det.Threshold())
	an := make([]int64, len(lab))
	for i, l := range lab {
		an[i] = int64(l)
	}
	emit(b.Shard, ScoredBlock{Shard: b.Shard, Start: b.Start, Scores: scores, Anomaly: an})
	return nil
}

// writeScoresFn writes the scores of one shard in row order to its staging
// file, Files[shard].
type writeScoresFn struct {
	Files []string
	Names []string
}

func (f *writeScoresFn) ProcessElement(ctx context.Context, shard int64, it func(*ScoredBlock) bool) error {
	var blocks []ScoredBlock
	var b ScoredBlock
	for it(&b) {
		blocks = append(blocks, b)
		b = ScoredBlock{}
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].Start < blocks[j].Start })
	var next int64
	for _, b := range blocks {
		if b.Start != next {
			return fmt.Errorf("exposebeam: shard %d: rows from %d are missing", shard, next)
		}
		next += int64(len(b.Scores))
	}
	name := f.Names[shard]
	return writeTo(ctx, f.Files[shard], func(w io.Writer) error {
		buf := []byte("id,score,anomaly\n")
		for _, b := range blocks {
			for i, s := range b.Scores {
				buf = append(buf, name...)
				buf = append(buf, ':')
				buf = strconv.AppendInt(buf, b.Start+int64(i), 10)
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, s, 'g', -1, 64)
				buf = append(buf, ',')
				buf = strconv.AppendInt(buf, b.Anomaly[i], 10)
				buf = append(buf, '\n')
				if len(buf) > 1<<16 {
					if _, err := w.Write(buf); err != nil {
						return err
					}
					buf = buf[:0]
				}
			}
		}
		_, err := w.Write(buf)
		return err
	})
}
