// Shared by notifyexec.c (the helper) and notifyexec.go (the daemon that starts it).
#ifndef KOTHD_NOTIFYEXEC_H
#define KOTHD_NOTIFYEXEC_H

// As the daemon binary's first argument, asks for the helper.
#define KOTHD_NOTIFY_EXEC_ARG "kothd-sandbox-sysinfo-exec"

// The helper's exit status when it fails: bwrap never ran, so its status file has no exit
// code and the start is the host's fault (sandboxFailed).
#define KOTHD_NOTIFY_EXEC_STATUS 125

#endif
