package smo

// Column states in the cache.
const (
	colEmpty  = iota // no valid entries
	colActive        // valid on the active set of generation gen
	colFull          // valid everywhere
)

// cache is a least-recently-used cache of columns of Q in the problem's
// order, as LIBSVM's Cache but without LIBSVM's permutation: a column is
// either whole or valid on the active set of the generation it was computed
// in (shrinking only removes variables until the solver reactivates all of
// them and starts a new generation, so such a column stays valid on every
// later active set of its generation and is completed by computing today's
// inactive entries).
//
// Every buffer holds a whole column and evicted buffers are recycled, so
// after warm-up the cache allocates nothing and leaves no garbage for the
// collector: the float32 values in memory, reachable or not, never exceed
// the budget.
type cache struct {
	l      int
	budget int64 // values (float32) allowed
	used   int64 // values held now
	peak   int64 // largest used seen
	head   []centry
	// region, when set, is where new column buffers are carved from (the
	// first unused at carved) before any is allocated: one mapping faulted
	// in huge pages as the columns are first written.
	region []float32
	carved int
	// LRU list: a circular doubly linked list through head with the sentinel
	// at index l.
}

type centry struct {
	prev, next int32
	state      int8
	gen        int32
	data       []float32
}

func newCache(l int, budgetValues int64) *cache {
	c := &cache{l: l, budget: budgetValues, head: make([]centry, l+1)}
	s := int32(l)
	c.head[s].prev, c.head[s].next = s, s
	for i := 0; i < l; i++ {
		c.head[i].prev, c.head[i].next = -1, -1
	}
	return c
}

func (c *cache) unlink(i int32) {
	e := &c.head[i]
	c.head[e.prev].next = e.next
	c.head[e.next].prev = e.prev
	e.prev, e.next = -1, -1
}

// pushFront makes i the most recently used column.
func (c *cache) pushFront(i int32) {
	s := int32(c.l)
	e := &c.head[i]
	e.next = c.head[s].next
	e.prev = s
	c.head[e.next].prev = i
	c.head[s].next = i
}

// get returns the entry of column i, most recently used now, with a buffer
// of l values (whose content is described by its state).
func (c *cache) get(i int) *centry {
	ii := int32(i)
	e := &c.head[ii]
	if e.data != nil {
		c.unlink(ii)
		c.pushFront(ii)
		return e
	}
	var buf []float32
	s := int32(c.l)
	for c.used+int64(c.l) > c.budget {
		h := c.head[s].prev
		if h == s {
			break
		}
		c.unlink(h)
		old := &c.head[h]
		c.used -= int64(cap(old.data))
		if buf == nil {
			buf = old.data
		}
		old.data, old.state = nil, colEmpty
	}
	if buf == nil && c.carved+c.l <= len(c.region) {
		buf = c.region[c.carved : c.carved+c.l : c.carved+c.l]
		c.carved += c.l
	}
	if buf == nil {
		buf = make([]float32, c.l)
	}
	c.used += int64(cap(buf))
	if c.used > c.peak {
		c.peak = c.used
	}
	e.data, e.state = buf[:c.l], colEmpty
	c.pushFront(ii)
	return e
}

// adopt makes buf (length l) the buffer of the empty column i, as get
// would, without recycling: the solver hands the cache one slab for every
// column when the whole matrix fits the budget.
func (c *cache) adopt(i int, buf []float32) *centry {
	ii := int32(i)
	e := &c.head[ii]
	if e.data != nil {
		panic("smo: adopt of a cached column")
	}
	e.data, e.state = buf[:c.l:c.l], colEmpty
	c.used += int64(c.l)
	c.peak = max(c.peak, c.used)
	c.pushFront(ii)
	return e
}
