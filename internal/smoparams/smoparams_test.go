package smoparams

import (
	"fmt"
	"testing"

	"github.com/kernelad/anomaly/detector"
)

func TestRead(t *testing.T) {
	for _, c := range []struct {
		m  map[string]string
		ok bool
	}{
		{map[string]string{}, true},
		{map[string]string{"tol": "0"}, false},
		{map[string]string{"cache_mb": "-1"}, false},
		{map[string]string{"max_iter": "-5"}, false},
		{map[string]string{"shrinking": "maybe"}, false},
	} {
		p := detector.NewParams("m", c.m)
		Read(p)
		if (p.Err() == nil) != c.ok {
			t.Errorf("%v: err %v", c.m, p.Err())
		}
	}
}

func ExampleRead() {
	p := detector.NewParams("ocsvm", map[string]string{"tol": "1e-6", "shrinking": "false"})
	s := Read(p)
	fmt.Println(s.Tol, s.CacheMB, s.NoShrinking, s.MaxIter, p.Err())
	// Output: 1e-06 200 true 0 <nil>
}
