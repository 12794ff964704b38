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
//
// Accounting is by capacity, so used bounds every float32 the cache can
// reach, and every buffer has the capacity of a whole column. That costs
// LIBSVM's trick of caching more short columns while the active set is
// small, but columns grow in place and evicted buffers are recycled, so
// after warm-up the cache allocates nothing and leaves no garbage for the
// collector: the kernel values in memory, reachable or not, stay within the
// budget.
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
	if cap(e.data) >= length {
		e.data = e.data[:length]
		c.pushFront(ii)
		return e.data, valid
	}
	old := e.data
	c.used -= int64(cap(old))
	e.data = nil
	// Evict least recently used columns until the new one fits, keeping an
	// evicted buffer that can hold it.
	var reuse []float32
	need := int64(len(c.head) - 1) // a new buffer holds a whole column
	s := c.sentinel()
	for c.used+need > c.budget {
		h := c.head[s].prev
		if h == s {
			break
		}
		c.unlink(h)
		d := c.head[h].data
		c.head[h].data = nil
		c.used -= int64(cap(d))
		if reuse == nil && cap(d) >= length {
			reuse = d
		}
	}
	var nd []float32
	if reuse != nil && c.used+int64(cap(reuse)) <= c.budget {
		nd = reuse[:length]
	} else {
		// Every buffer gets room for a whole column, so a column cached
		// over the active set is later extended in place and any evicted
		// buffer can be recycled: after warm-up the cache allocates nothing.
		nd = make([]float32, length, len(c.head)-1)
	}
	copy(nd, old)
	c.used += int64(cap(nd))
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
	// Scan the entries in index order: a contiguous pass, cheaper than
	// chasing the LRU links.
	for h := range c.head[:len(c.head)-1] {
		d := c.head[h].data
		if len(d) <= i {
			continue
		}
		if len(d) > j {
			d[i], d[j] = d[j], d[i]
		} else {
			// The column covers i but not j: drop it, as LIBSVM does.
			c.unlink(int32(h))
			c.used -= int64(cap(d))
			c.head[h].data = nil
		}
	}
}
