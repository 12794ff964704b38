package bench

import (
	"encoding/json"
	"math"
)

// JSON has no NaN: the figures of a run that did not finish, and the
// medians of a cell with no finished run, are written as null and read
// back as NaN.

func nullable(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

type outcomeAlias Outcome

type outcomeJSON struct {
	outcomeAlias
	AUC *float64 `json:"auc"`
	AP  *float64 `json:"ap"`
}

// MarshalJSON writes NaN figures as null.
func (o Outcome) MarshalJSON() ([]byte, error) {
	return json.Marshal(outcomeJSON{outcomeAlias(o), nullable(o.AUC), nullable(o.AP)})
}

// UnmarshalJSON reads null figures as NaN.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	var j outcomeJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*o = Outcome(j.outcomeAlias)
	o.AUC, o.AP = orNaN(j.AUC), orNaN(j.AP)
	return nil
}

type cellAlias Cell

type cellJSON struct {
	cellAlias
	Status       string   `json:"status"`
	AUC          *float64 `json:"auc"`
	AP           *float64 `json:"ap"`
	FitSeconds   *float64 `json:"fit_seconds"`
	ScoreSeconds *float64 `json:"score_seconds"`
}

// MarshalJSON writes NaN medians as null and adds the Status.
func (c Cell) MarshalJSON() ([]byte, error) {
	return json.Marshal(cellJSON{cellAlias(c), c.Status(), nullable(c.AUC), nullable(c.AP),
		nullable(c.FitSeconds), nullable(c.ScoreSeconds)})
}

// UnmarshalJSON reads null medians as NaN.
func (c *Cell) UnmarshalJSON(b []byte) error {
	var j cellJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*c = Cell(j.cellAlias)
	c.AUC, c.AP, c.FitSeconds, c.ScoreSeconds = orNaN(j.AUC), orNaN(j.AP), orNaN(j.FitSeconds), orNaN(j.ScoreSeconds)
	return nil
}
