//go:build !linux

package hugepage

// Advise is a no-op where transparent huge pages cannot be requested.
func Advise([]float64) {}

// Advise32 is a no-op where transparent huge pages cannot be requested.
func Advise32([]float32) {}

// Prefault is a no-op where transparent huge pages cannot be requested.
func Prefault([]float64) {}

// Prefault32 is a no-op where transparent huge pages cannot be requested.
func Prefault32([]float32) {}

// Alloc returns Floats(n) where buffers cannot be mapped directly; free
// does nothing.
func Alloc(n int) (f []float64, free func()) { return Floats(n), func() {} }

// Reserve returns make([]float64, n) where buffers cannot be mapped
// directly; free does nothing.
func Reserve(n int) (f []float64, free func()) { return make([]float64, n), func() {} }

// Reserve32 returns make([]float32, n) where buffers cannot be mapped
// directly; free does nothing.
func Reserve32(n int) (f []float32, free func()) { return make([]float32, n), func() {} }

// Alloc32 returns Float32s(n) where buffers cannot be mapped directly; free
// does nothing.
func Alloc32(n int) (f []float32, free func()) { return Float32s(n), func() {} }
