//go:build !amd64

package fastmath

const useAsm = false

func cosAddAsm(dst, b []float64, s float64) bool { panic("fastmath: no assembly kernel") }

func cosAffineAsm(dst, x, wt []float64, stride int, b []float64, s float64) bool {
	panic("fastmath: no assembly kernel")
}
