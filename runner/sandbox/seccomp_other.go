//go:build !amd64 && !arm64

package sandbox

// No system call table for this architecture: sandboxes run without the seccomp filter
// (NewBwrap logs it at error level).
var nativeSeccomp = seccompArch{}
