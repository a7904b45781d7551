// Package archdoc holds no code: its tests keep docs/architecture.md's list of the module's
// packages and their imports true to what `go list` says, and check that the engines import
// nothing above them. After moving or adding packages, rewrite the list with
//
//	go test ./internal/archdoc -run TestArchitectureDoc -update
package archdoc
