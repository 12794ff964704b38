package setflag_test

import (
	"fmt"

	"github.com/kernelad/anomaly/internal/setflag"
)

func Example() {
	params, err := setflag.Parse([]string{"gamma=0.5", " shape = 24,51 "})
	fmt.Println(params, err)
	fmt.Println(setflag.Add(params, "seed", "3", "--seed"), params["seed"])
	fmt.Println(setflag.Add(params, "gamma", "1", "--gamma"))
	_, err = setflag.Parse([]string{"gamma=0.5", "gamma=1"})
	fmt.Println(err)
	_, err = setflag.Parse([]string{"gamma"})
	fmt.Println(err)
	// Output:
	// map[gamma:0.5 shape:24,51] <nil>
	// <nil> 3
	// --gamma and --set gamma both given; give it once
	// --set gamma is given twice
	// --set "gamma": want key=value, as in --set gamma=0.5
}
