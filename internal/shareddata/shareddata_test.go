package shareddata

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestDirIsBesideTheRepository(t *testing.T) {
	// This test runs in <repository>/internal/shareddata.
	want, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "data"))
	got, _ := filepath.Abs(Dir())
	if got != want {
		t.Fatalf("Dir() = %s, want %s", got, want)
	}
}

func TestPathSkipsWhenAbsent(t *testing.T) {
	ran := t.Run("absent", func(t *testing.T) {
		Path(t, "no/such/file.npz")
		t.Fatal("Path did not skip")
	})
	if !ran {
		t.Fatal("the subtest failed instead of skipping")
	}
}

// Dir names the shared data folder beside the repository; tests reach files
// in it through Path or ADBenchSplit, which skip when it is absent.
func ExampleDir() {
	fmt.Println(filepath.Base(filepath.Dir(Dir())), filepath.Base(Dir()))
	// Output: shared data
}
