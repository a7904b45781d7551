// The sandbox helper (notifyexec.go says what it does and why), in C: a constructor of
// the daemon's binary, run by the C runtime before the Go runtime starts. Started as the
// helper, the binary does its work here and executes the sandbox's command; it never
// starts Go, whose runtime and package initialisation cost about 4 ms of CPU per sandbox
// (the helper's whole work is a dozen system calls). Started as anything else, the
// constructor returns at once.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "notifyexec.h"

static void kothd_fail(const char *what, const char *arg, int err) {
	dprintf(2, "kothd sandbox helper: %s%s%s%s%s\n", what, arg ? " " : "", arg ? arg : "",
		err ? ": " : "", err ? strerror(err) : "");
	_exit(KOTHD_NOTIFY_EXEC_STATUS);
}

// kothd_number is a decimal argument in [0, INT_MAX], or -1.
static int kothd_number(const char *s) {
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0 || v > INT_MAX)
		return -1;
	return (int)v;
}

static int kothd_hex(char c) {
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

// kothd_notify_exec: argv is
//   <exe> KOTHD_NOTIFY_EXEC_ARG <sock> <exe fd> <filter, hex> <n> <cgroup.procs>×n <command...>
__attribute__((constructor)) static void kothd_notify_exec(int argc, char **argv, char **envp) {
	if (argc < 7 || strcmp(argv[1], KOTHD_NOTIFY_EXEC_ARG) != 0)
		return;
	int sock = kothd_number(argv[2]), exe = kothd_number(argv[3]), n = kothd_number(argv[5]);
	if (sock < 0)
		kothd_fail("socket", argv[2], 0);
	if (n < 0 || argc < 7 + n)
		kothd_fail("cgroup count", argv[5], 0);
	char **procs = argv + 6, **command = argv + 6 + n;
	if (exe >= 0)
		close(exe);

	// The filter, sock_filter by sock_filter in the machine's byte order as hex.
	static unsigned char prog[BPF_MAXINSNS * sizeof(struct sock_filter)];
	size_t hex = strlen(argv[4]);
	if (hex == 0 || hex % (2 * sizeof(struct sock_filter)) != 0 || hex / 2 > sizeof prog)
		kothd_fail("filter", "of a bad length", 0);
	for (size_t i = 0; i < hex / 2; i++) {
		int hi = kothd_hex(argv[4][2 * i]), lo = kothd_hex(argv[4][2 * i + 1]);
		if (hi < 0 || lo < 0)
			kothd_fail("filter", "not hex", 0);
		prog[i] = (unsigned char)(hi << 4 | lo);
	}
	struct sock_fprog fprog = {
		.len = (unsigned short)(hex / 2 / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)prog,
	};
	// Without CAP_SYS_ADMIN the kernel wants no_new_privs first (bwrap sets it anyway
	// before the bot runs; a root daemon has the capability and leaves it to bwrap and
	// setpriv).
	long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
	if (listener < 0 && errno == EACCES) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			kothd_fail("no_new_privs", NULL, errno);
		listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
	}
	if (listener < 0)
		kothd_fail("install the sysinfo filter", NULL, errno);

	char byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	memset(&control, 0, sizeof control);
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	int fd = (int)listener;
	memcpy(CMSG_DATA(c), &fd, sizeof fd);
	if (sendmsg(sock, &msg, 0) < 0)
		kothd_fail("send the listener", NULL, errno);
	close(fd);
	close(sock);

	// Joined last: moving a process in is not held to the cgroup's task limit.
	char pid[24];
	int len = snprintf(pid, sizeof pid, "%d", (int)getpid());
	for (int i = 0; i < n; i++) {
		int p = open(procs[i], O_WRONLY | O_CLOEXEC);
		if (p < 0)
			kothd_fail("join cgroup", procs[i], errno);
		if (write(p, pid, (size_t)len) != len)
			kothd_fail("join cgroup", procs[i], errno);
		close(p);
	}
	// A name without a slash is looked up in PATH, as exec.LookPath did.
	if (strchr(command[0], '/') != NULL)
		execve(command[0], command, envp);
	else
		execvpe(command[0], command, envp);
	kothd_fail("exec", command[0], errno);
}
