// Macros shared by the package's assembly kernels.

// HSUM sets the low lane of x to the sum of the four lanes of y (x is y's
// low half), through the X register t.
#define HSUM(y, x, t) \
	VEXTRACTF128 $1, y, t; \
	VADDPD       t, x, x; \
	VHADDPD      x, x, x
