package smo

// cache is a least-recently-used cache of columns of Q, indexed by position
// in the solver's current (permuted) order, as LIBSVM's Cache. A column may
// be held partially: its first len(data) entries. The total number of
// float32 values held never exceeds budget.
type cache struct {
	budget int64 // values (float32) allowed
	used   int64 // values held now
	peak   int64 // largest used seen
	head   []centry
	// LRU list: a circular doubly linked list through head with the sentinel
	// at index len(head)-1 (one past the last position).
}

type centry struct {
	prev, next int32
	data       []float32
}

func newCache(l int, budgetValues int64) *cache {
	c := &cache{budget: budgetValues, head: make([]centry, l+1)}
	s := int32(l)
	c.head[s].prev, c.head[s].next = s, s
	for i := 0; i < l; i++ {
		c.head[i].prev, c.head[i].next = -1, -1
	}
	return c
}

func (c *cache) sentinel() int32 { return int32(len(c.head) - 1) }

func (c *cache) unlink(i int32) {
	e := &c.head[i]
	c.head[e.prev].next = e.next
	c.head[e.next].prev = e.prev
	e.prev, e.next = -1, -1
}

// pushFront makes i the most recently used column.
func (c *cache) pushFront(i int32) {
	s := c.sentinel()
	e := &c.head[i]
	e.next = c.head[s].next
	e.prev = s
	c.head[e.next].prev = i
	c.head[s].next = i
}

// get returns the storage of column i with at least length entries and the
// number of leading entries already valid; the caller fills the rest.
func (c *cache) get(i int, length int) (data []float32, valid int) {
	if length <= 0 {
		return nil, 0
	}
	ii := int32(i)
	e := &c.head[ii]
	if e.next != -1 {
		c.unlink(ii)
	}
	valid = len(e.data)
	if valid >= length {
		c.pushFront(ii)
		return e.data, length
	}
	more := int64(length - valid)
	// Evict least recently used columns until the new part fits.
	s := c.sentinel()
	for c.used+more > c.budget {
		old := c.head[s].prev
		if old == s {
			break
		}
		c.unlink(old)
		c.used -= int64(len(c.head[old].data))
		c.head[old].data = nil
	}
	nd := make([]float32, length)
	copy(nd, e.data)
	c.used += more
	if c.used > c.peak {
		c.peak = c.used
	}
	e.data = nd
	c.pushFront(ii)
	return nd, valid
}

// swap exchanges positions i and j (i < j) in every cached column and swaps
// the columns stored under i and j, keeping the cache consistent with the
// solver's permutation.
func (c *cache) swap(i, j int) {
	if i == j {
		return
	}
	if i > j {
		i, j = j, i
	}
	ii, jj := int32(i), int32(j)
	li, lj := c.head[ii].next != -1, c.head[jj].next != -1
	if li {
		c.unlink(ii)
	}
	if lj {
		c.unlink(jj)
	}
	c.head[ii].data, c.head[jj].data = c.head[jj].data, c.head[ii].data
	if li {
		c.pushFront(jj)
	}
	if lj {
		c.pushFront(ii)
	}
	s := c.sentinel()
	for h := c.head[s].next; h != s; {
		next := c.head[h].next
		d := c.head[h].data
		if len(d) > i {
			if len(d) > j {
				d[i], d[j] = d[j], d[i]
			} else {
				// The column covers i but not j: drop it, as LIBSVM does.
				c.unlink(h)
				c.used -= int64(len(d))
				c.head[h].data = nil
			}
		}
		h = next
	}
}
