/* A bot that tries to pass a value to another sandbox, or read one, through state two
 * sandboxes share (sandbox/channels_test.go). Usage:
 *   chan CHANNEL send VALUE FILE...   (bit i of VALUE goes through FILE i)
 *   chan CHANNEL recv 0 FILE...       (prints "value=N err=E": the bits it decoded, and
 *                                      the first errno a system call returned, 0 if none)
 * A sender of a lasting channel (locks, keys) prints "ready" once set and holds its
 * state until its stdin closes. A receiver of inotify prints "ready" once it watches.
 * Also: chan userns|ptrace probe 0;  chan loop N (CPU ns per system call);  the slot
 * channels (timing: CPU contention; sysinfo: its process count; pipeino: the inode numbers
 * of new pipes), where the receiver prints one figure per slot:
 *   chan CHANNEL send SLOT_US START_NS BITS [PIPES]      chan CHANNEL recv SLOT_US START_NS NBITS
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int first_err;
static void note(int e) { if (!first_err && e) first_err = e; }

static void wait_stdin(void) {
	char b[64];
	while (read(0, b, sizeof b) > 0) {}
}

static void ready(void) { printf("ready\n"); fflush(stdout); }

static int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int timing(const char *role, long slot_us, int64_t start, const char *arg) {
	int64_t slot = (int64_t)slot_us * 1000;
	/* Both ends on the same CPU, as an attacker would place them (allowed to any bot). */
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_setaffinity(0, sizeof one, &one);
	if (!strcmp(role, "send")) {
		int n = strlen(arg);
		for (int i = 0; i < n; i++) {
			int64_t from = start + i * slot, to = from + slot;
			while (now_ns() < from) {}
			if (arg[i] == '1') {
				while (now_ns() < to) {}
			} else {
				struct timespec ts = {0, 0};
				int64_t left = to - now_ns();
				if (left > 0) { ts.tv_sec = left / 1000000000; ts.tv_nsec = left % 1000000000; nanosleep(&ts, 0); }
			}
		}
		return 0;
	}
	int n = atoi(arg);
	for (int i = 0; i < n; i++) {
		int64_t from = start + i * slot, to = from + slot;
		while (now_ns() < from) {}
		long count = 0;
		while (now_ns() < to) count++;
		printf("%ld\n", count);
	}
	return 0;
}

static void sleep_until(int64_t t) {
	int64_t left = t - now_ns();
	if (left > 0) {
		struct timespec ts = {left / 1000000000, left % 1000000000};
		nanosleep(&ts, 0);
	}
}

/* sysinfo's procs: for a 1 the sender starts 20 processes at 20% of the slot that end at
 * 70%; the receiver prints procs at 50% minus procs at 10%. */
static int sysinfo_chan(const char *role, long slot_us, int64_t start, const char *arg) {
	int64_t slot = (int64_t)slot_us * 1000;
	if (!strcmp(role, "send")) {
		int n = strlen(arg);
		for (int i = 0; i < n; i++) {
			int64_t from = start + i * slot;
			sleep_until(from + slot / 5);
			if (arg[i] != '1') continue;
			for (int k = 0; k < 20; k++) {
				if (fork() == 0) { sleep_until(from + slot * 7 / 10); _exit(0); }
			}
			while (waitpid(-1, 0, 0) > 0) {}
		}
		return 0;
	}
	int n = atoi(arg);
	for (int i = 0; i < n; i++) {
		int64_t from = start + i * slot;
		struct sysinfo a, b;
		sleep_until(from + slot / 10);
		note(sysinfo(&a) ? errno : 0);
		sleep_until(from + slot / 2);
		note(sysinfo(&b) ? errno : 0);
		printf("%d\n", (int)b.procs - (int)a.procs);
		fflush(stdout);
	}
	return 0;
}

/* A new pipe's inode number comes from a counter of the whole machine (get_next_ino,
 * handed out to each CPU in batches of 1024). For a 1 the sender makes PIPES pipes (an
 * optional last argument, 2048 by default) at the start of the slot; at its end the receiver makes 1100 (past the end of its CPU's batch)
 * and prints how far the highest inode number it saw moved beyond its own pipes. */
static unsigned long new_pipe_ino(void) {
	int p[2];
	struct stat st = {0};
	if (pipe(p)) { note(errno); return 0; }
	fstat(p[0], &st);
	close(p[0]);
	close(p[1]);
	return st.st_ino;
}

static int pipeino_chan(const char *role, long slot_us, int64_t start, const char *arg, int pipes) {
	int64_t slot = (int64_t)slot_us * 1000;
	if (!strcmp(role, "send")) {
		int n = strlen(arg);
		for (int i = 0; i < n; i++) {
			sleep_until(start + i * slot + slot / 10);
			if (arg[i] == '1')
				for (int k = 0; k < pipes; k++) new_pipe_ino();
		}
		return 0;
	}
	int n = atoi(arg);
	unsigned long high = 0;
	for (int k = 0; k < 1100; k++) { unsigned long x = new_pipe_ino(); if (x > high) high = x; }
	for (int i = 0; i < n; i++) {
		sleep_until(start + i * slot + slot * 7 / 10);
		unsigned long prev = high;
		for (int k = 0; k < 1100; k++) { unsigned long x = new_pipe_ino(); if (x > high) high = x; }
		printf("%ld\n", (long)(high - prev) - 1100);
		fflush(stdout);
	}
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 4) return 2;
	const char *ch = argv[1], *role = argv[2];
	unsigned value = strtoul(argv[3], 0, 0), got = 0;
	char **files = argv + 4;
	int n = argc - 4;
	int send = !strcmp(role, "send");

	if (!strcmp(ch, "timing")) return timing(role, atol(argv[3]), atoll(argv[4]), argv[5]);
	if (!strcmp(ch, "sysinfo")) return sysinfo_chan(role, atol(argv[3]), atoll(argv[4]), argv[5]);
	if (!strcmp(ch, "pipeino")) return pipeino_chan(role, atol(argv[3]), atoll(argv[4]), argv[5], argc > 6 ? atoi(argv[6]) : 2048);
	if (!strcmp(ch, "loop")) {
		/* VALUE system calls (getppid, never cached by libc; then 1-byte preads): the CPU
		 * time per call, in ns, for the filter's cost. */
		struct timespec a, b;
		char c;
		int fd = open("/dev/zero", O_RDONLY);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		for (unsigned i = 0; i < value; i++) syscall(SYS_getppid);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		double getppid_ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / value;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		for (unsigned i = 0; i < value; i++) pread(fd, &c, 1, 0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		double pread_ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / value;
		printf("%.1f %.1f\n", getppid_ns, pread_ns);
		return 0;
	}

	if (!strcmp(ch, "flock") || !strcmp(ch, "fcntl") || !strcmp(ch, "ofd")) {
		int getlk = !strcmp(ch, "fcntl") ? F_GETLK : F_OFD_GETLK;
		int setlk = !strcmp(ch, "fcntl") ? F_SETLK : F_OFD_SETLK;
		for (int i = 0; i < n; i++) {
			int fd = open(files[i], O_RDONLY);
			if (fd < 0) { note(errno); continue; }
			if (!strcmp(ch, "flock")) {
				if (send) {
					if ((value >> i & 1) && flock(fd, LOCK_EX | LOCK_NB) < 0) note(errno);
				} else if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
					if (errno == EWOULDBLOCK) got |= 1u << i; else note(errno);
				}
			} else {
				struct flock fl = {0};
				fl.l_whence = SEEK_SET; fl.l_start = 0; fl.l_len = 1;
				if (send) {
					fl.l_type = F_RDLCK;
					if ((value >> i & 1) && fcntl(fd, setlk, &fl) < 0) note(errno);
				} else {
					fl.l_type = F_WRLCK;
					if (fcntl(fd, getlk, &fl) < 0) note(errno);
					else if (fl.l_type != F_UNLCK) got |= 1u << i;
				}
			}
		}
		if (send) { ready(); wait_stdin(); }
	} else if (!strcmp(ch, "cache") || !strcmp(ch, "mincore")) {
		static char buf[1 << 16];
		for (int i = 0; i < n; i++) {
			int fd = open(files[i], O_RDONLY);
			if (fd < 0) { note(errno); continue; }
			if (send) {
				if (value >> i & 1) {
					while (read(fd, buf, sizeof buf) > 0) {}
				} else {
					int e = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
					note(e);
				}
			} else if (!strcmp(ch, "cache")) {
				struct iovec iov = {buf, 4096};
				ssize_t r = preadv2(fd, &iov, 1, 0, RWF_NOWAIT);
				if (r >= 0) got |= 1u << i; else if (errno != EAGAIN) note(errno);
			} else {
				void *p = mmap(0, 4096, PROT_READ, MAP_SHARED, fd, 0);
				unsigned char vec[1] = {0};
				if (p == MAP_FAILED) note(errno);
				else if (mincore(p, 4096, vec) < 0) note(errno);
				else if (vec[0] & 1) got |= 1u << i;
			}
			close(fd);
		}
	} else if (!strcmp(ch, "inotify")) {
		if (send) {
			for (int i = 0; i < n; i++)
				if (value >> i & 1) { int fd = open(files[i], O_RDONLY); if (fd >= 0) close(fd); }
		} else {
			int in = inotify_init1(IN_NONBLOCK);
			int wd[32];
			if (in < 0) note(errno);
			for (int i = 0; in >= 0 && i < n; i++) {
				wd[i] = inotify_add_watch(in, files[i], IN_OPEN);
				if (wd[i] < 0) note(errno);
			}
			ready();
			/* Until two quiet seconds (at most twenty). */
			for (int quiet = 0, t = 0; in >= 0 && quiet < 20 && t < 200; t++) {
				struct pollfd pf = {in, POLLIN, 0};
				if (poll(&pf, 1, 100) <= 0) { quiet++; continue; }
				quiet = 0;
				char ev[4096] __attribute__((aligned(8)));
				ssize_t r = read(in, ev, sizeof ev);
				for (char *p = ev; r > 0 && p < ev + r;) {
					struct inotify_event *e = (struct inotify_event *)p;
					for (int i = 0; i < n; i++) if (wd[i] == e->wd) got |= 1u << i;
					p += sizeof *e + e->len;
				}
			}
		}
	} else if (!strcmp(ch, "keyring")) {
		/* The user keyring of the host uid: one per uid, whatever the sandbox. */
		if (send) {
			long id = syscall(SYS_add_key, "user", "kothd-chan", &value, sizeof value, -4 /* KEY_SPEC_USER_KEYRING */);
			if (id < 0) note(errno);
			ready(); wait_stdin();
		} else {
			long id = syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, -4, "user", "kothd-chan", 0);
			if (id < 0) note(errno);
			else if (syscall(SYS_keyctl, 11 /* KEYCTL_READ */, id, &got, sizeof got) < 0) note(errno);
		}
	} else if (!strcmp(ch, "userns")) {
		/* Each way to a new user namespace; prints the errno of each (0: it worked). */
		int e1 = unshare(CLONE_NEWUSER) < 0 ? errno : 0;
		struct { uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls; } ca = {CLONE_NEWUSER, 0, 0, 0, SIGCHLD, 0, 0, 0};
		long pid = syscall(SYS_clone3, &ca, sizeof ca);
		if (pid == 0) _exit(0);
		int e2 = pid < 0 ? errno : 0;
		if (pid > 0) waitpid(pid, 0, 0);
		pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
		if (pid == 0) _exit(0);
		int e3 = pid < 0 ? errno : 0;
		if (pid > 0) waitpid(pid, 0, 0);
		/* The upper half of a 32-bit argument must not hide the flag. */
		int e4 = syscall(SYS_unshare, 0x100000000UL | CLONE_NEWUSER) < 0 ? errno : 0;
		printf("unshare=%d clone3=%d clone=%d unshare_hi=%d\n", e1, e2, e3, e4);
		return 0;
	} else if (!strcmp(ch, "ptrace")) {
		pid_t kid = fork();
		if (kid == 0) { pause(); _exit(0); }
		int e1 = ptrace(PTRACE_ATTACH, kid, 0, 0) < 0 ? errno : 0;
		char b[8];
		struct iovec local = {b, sizeof b}, remote = {&value, sizeof b};
		int e2 = process_vm_readv(kid, &local, 1, &remote, 1, 0) < 0 ? errno : 0;
		int e3 = syscall(SYS_kcmp, getpid(), kid, 0 /* KCMP_FILE */, 0, 0) < 0 ? errno : 0;
		/* fcntl's lock command with its upper half set: the kernel reads an int. */
		int fd = open("/usr/bin/env", O_RDONLY);
		struct flock fl = {0};
		fl.l_type = F_RDLCK; fl.l_len = 1;
		int e4 = syscall(SYS_fcntl, fd, 0x100000000UL | F_SETLK, &fl) < 0 ? errno : 0;
		kill(kid, SIGKILL);
		waitpid(kid, 0, 0);
		printf("ptrace=%d process_vm_readv=%d kcmp=%d fcntl_hi=%d\n", e1, e2, e3, e4);
		return 0;
	} else {
		return 2;
	}
	if (!send) printf("value=%u err=%d\n", got, first_err);
	else if (first_err) fprintf(stderr, "sender err=%d\n", first_err);
	return 0;
}
