// Package cli holds the commands of the anomaly program: flags, files and
// printing around the library, no algorithm. cmd/anomaly's main calls Run.
package cli
