/* _pyclassfast: the batch loop of the pyclass harness (pyclass.py's _serve) in C.

kothd compiles this file against the configured interpreter's headers (pyfast.go) and
installs the result beside pyclass.py; the harness loads it when it is there and serves
its batches here, else it serves them in Python (the same protocol, byte for byte: the
differential tests feed both the same lines). What the Python loop spends per call on
bytecode (the request's decoding, the dispatch, the timers' bookkeeping, the replies'
encoding) is C here; everything rare or bot-visible in its text stays in pyclass.py and is
called from here: the general JSON request form, the stats line, a reply that is not a
boolean, a fault's description.

The timers' state (in a call, its start's CPU and wall time, stopped by the wall clock,
untimed depth) lives in this file, and so do the SIGPROF and SIGALRM handlers that read
it (on_prof, on_alarm: pyclass.py installs them instead of its own); pyclass.untimed calls
untimed_enter and untimed_exit. A bot can reach all of it (sys.modules, gc): what it can
do with it it could already do to pyclass.py's globals, and it is its own process's state
only (its calls go unbounded until the runner's batch deadline kills the process, its
replies turn to bad output). serve refuses to run twice or from inside a call.

A game module may declare a dispatch served here without its Handler.call's frame
(Handler.FAST, see serve): forty's "next" and "start", nine calls in ten. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <errno.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#if PY_VERSION_HEX < 0x03090000
#error "the pyclass fast path needs Python 3.9 or newer"
#endif

/* The timers' state: pyclass.py's _limit, _wall, ... */
static struct {
    double limit, wall, tick;
    int in_call;
    long untimed;
    double last_cpu, call_cpu0, call_wall0;
    int by_wall;
    int sched_fd;
    long long batch_wait0;
    int serving;
} S = {.sched_fd = -1};

static PyObject *CallTimeout; /* pyclass.CallTimeout, set by serve */

static double process_time(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
        return 0.0;
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* pyclass.py's _sched_wait: the serving thread's wait for a CPU so far, in ns (0 if unknown). */
static long long sched_wait(void) {
    if (S.sched_fd < 0)
        return 0;
    char buf[129];
    ssize_t n = pread(S.sched_fd, buf, 128, 0);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    char *p = buf;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++; /* the first field */
    while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
    if (!(*p >= '0' && *p <= '9'))
        return 0;
    long long v = 0;
    while (*p >= '0' && *p <= '9') {
        v = v * 10 + (*p - '0');
        p++;
    }
    if (*p && *p != ' ' && *p != '\t' && *p != '\n')
        return 0;
    return v;
}

static double host_wait(void) {
    long long w = sched_wait() - S.batch_wait0;
    return w > 0 ? w / 1e9 : 0.0;
}

static int set_timer(int which, double value, double interval) {
    struct itimerval it;
    double vals[2] = {value, interval};
    struct timeval *tv[2] = {&it.it_value, &it.it_interval};
    for (int i = 0; i < 2; i++) {
        double v = vals[i];
        if (!(v > 0)) {
            tv[i]->tv_sec = tv[i]->tv_usec = 0;
            continue;
        }
        double sec = (double)(long long)v;
        long usec = (long)((v - sec) * 1e6 + 0.999999);
        if (usec >= 1000000) {
            sec += 1;
            usec -= 1000000;
        }
        if (sec == 0 && usec == 0)
            usec = 1;
        tv[i]->tv_sec = (time_t)sec;
        tv[i]->tv_usec = usec;
    }
    if (setitimer(which, &it, NULL) != 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    return 0;
}

/* pyclass.py's _arm. */
static int arm(double cpu, double wall) {
    if (cpu != S.limit) {
        S.limit = cpu;
        if (cpu > 0) {
            double t = cpu / 20;
            S.tick = t < 0.005 ? 0.005 : t > 0.05 ? 0.05 : t;
            S.last_cpu = process_time();
            if (set_timer(ITIMER_PROF, S.tick, S.tick) < 0)
                return -1;
        } else if (set_timer(ITIMER_PROF, 0, 0) < 0)
            return -1;
    }
    if (wall != S.wall) {
        S.wall = wall;
        if (set_timer(ITIMER_REAL, wall, wall) < 0)
            return -1;
    }
    return 0;
}

static PyObject *on_prof(PyObject *self, PyObject *args) {
    double now = process_time();
    S.last_cpu = now;
    if (S.in_call && !S.untimed && S.limit > 0 && now - S.call_cpu0 >= S.limit + S.tick && CallTimeout) {
        PyErr_SetNone(CallTimeout);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *on_alarm(PyObject *self, PyObject *args) {
    if (!S.in_call || S.untimed)
        Py_RETURN_NONE;
    double left = S.wall - (monotonic() - S.call_wall0) + host_wait();
    if (left > 0) {
        if (set_timer(ITIMER_REAL, left, S.wall) < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    if (!CallTimeout)
        Py_RETURN_NONE;
    S.by_wall = 1;
    PyErr_SetNone(CallTimeout);
    return NULL;
}

static PyObject *untimed_enter(PyObject *self, PyObject *args) {
    double cpu0 = process_time(), wall0 = monotonic();
    S.untimed++;
    return Py_BuildValue("(dd)", cpu0, wall0);
}

static PyObject *untimed_exit(PyObject *self, PyObject *args) {
    double cpu0, wall0;
    if (!PyArg_ParseTuple(args, "dd", &cpu0, &wall0))
        return NULL;
    S.untimed--;
    if (S.untimed == 0 && S.in_call) {
        S.call_cpu0 += process_time() - cpu0;
        S.call_wall0 += monotonic() - wall0;
        if (S.wall > 0) {
            double left = S.wall - (monotonic() - S.call_wall0);
            if (set_timer(ITIMER_REAL, left > 1e-3 ? left : 1e-3, S.wall) < 0)
                return NULL;
        }
    }
    Py_RETURN_NONE;
}

/* ---- the protocol's input: one read(2) brings every line already queued ---- */

static struct {
    char *buf;
    size_t start, end, cap;
    int eof;
    int busy; /* a read(2) is under way, the GIL released: a second reader is refused */
} R;

/* read_line sets *line and *len to the next line (without its newline) and returns 1, or
   returns 0 at the end of the input, -1 with an exception set. The line stays valid until
   the next call. As pyclass.py's _lines: a last line without a newline is a line. */
static int read_line(int fd, const char **line, Py_ssize_t *len) {
    if (R.busy) {
        PyErr_SetString(PyExc_RuntimeError, "the harness is reading");
        return -1;
    }
    size_t scanned = R.start;
    for (;;) {
        char *nl = R.end > scanned ? memchr(R.buf + scanned, '\n', R.end - scanned) : NULL;
        if (nl) {
            *line = R.buf + R.start;
            *len = nl - (R.buf + R.start);
            R.start = nl - R.buf + 1;
            return 1;
        }
        scanned = R.end;
        if (R.eof) {
            if (R.end > R.start) {
                *line = R.buf + R.start;
                *len = R.end - R.start;
                R.start = R.end;
                return 1;
            }
            return 0;
        }
        if (R.start > 0) { /* keep the pending part at the buffer's start */
            memmove(R.buf, R.buf + R.start, R.end - R.start);
            R.end -= R.start;
            scanned -= R.start;
            R.start = 0;
        }
        if (R.cap - R.end < (1 << 16)) {
            size_t cap = R.cap ? R.cap * 2 : 1 << 17;
            while (cap - R.end < (1 << 16))
                cap *= 2;
            char *b = PyMem_RawRealloc(R.buf, cap);
            if (!b) {
                PyErr_NoMemory();
                return -1;
            }
            R.buf = b;
            R.cap = cap;
        }
        /* The GIL is released while the loop waits, as os.read releases it: a thread the
           bot started runs (and is charged) between batches as under the Python loop. */
        ssize_t n;
        int err;
        R.busy = 1;
        Py_BEGIN_ALLOW_THREADS
        n = read(fd, R.buf + R.end, 1 << 16);
        err = errno;
        Py_END_ALLOW_THREADS
        R.busy = 0;
        errno = err;
        if (n < 0) {
            if (errno == EINTR) {
                if (PyErr_CheckSignals() < 0)
                    return -1;
                continue;
            }
            PyErr_SetFromErrno(PyExc_OSError);
            return -1;
        }
        if (n == 0)
            R.eof = 1;
        R.end += n;
    }
}

static PyObject *readline_(PyObject *self, PyObject *args) {
    int fd;
    if (!PyArg_ParseTuple(args, "i", &fd))
        return NULL;
    if (S.serving || R.busy) {
        PyErr_SetString(PyExc_RuntimeError, "the harness is serving");
        return NULL;
    }
    const char *line;
    Py_ssize_t len;
    int r = read_line(fd, &line, &len);
    if (r < 0)
        return NULL;
    if (r == 0)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize(line, len);
}

/* ---- the packed request: {"t":num,"w":num,"m":["name",...],"p":"base64"}, exactly as
   kothd writes it (pywire.go). Anything else, or anything irregular in it, goes to
   pyclass.py's _request, which reads every form and fails as the Python loop fails. ---- */

typedef struct {
    double t, w;
    PyObject *methods; /* tuple of str */
    unsigned char *raw;
    Py_ssize_t nraw; /* int32s */
} Packed;

static int lit(const char **p, const char *end, const char *s) {
    size_t n = strlen(s);
    if ((size_t)(end - *p) < n || memcmp(*p, s, n) != 0)
        return 0;
    *p += n;
    return 1;
}

/* A JSON number; -0 is read as 0, as float(x or 0) reads it. */
static int number(const char **p, const char *end, double *out) {
    const char *s = *p, *q = s;
    if (q < end && *q == '-')
        q++;
    if (q >= end || !(*q >= '0' && *q <= '9'))
        return 0;
    if (*q == '0')
        q++;
    else
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    if (q < end && *q == '.') {
        q++;
        if (q >= end || !(*q >= '0' && *q <= '9'))
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < end && (*q == '+' || *q == '-'))
            q++;
        if (q >= end || !(*q >= '0' && *q <= '9'))
            return 0;
        while (q < end && *q >= '0' && *q <= '9')
            q++;
    }
    if (q - s > 24)
        return 0; /* a long integer would be a Python int first: leave it to Python */
    char tmp[32];
    memcpy(tmp, s, q - s);
    tmp[q - s] = 0;
    double v = strtod(tmp, NULL);
    if (!(v - v == 0))
        return 0; /* inf: leave it to Python */
    *out = v == 0 ? 0.0 : v;
    *p = q;
    return 1;
}

static signed char b64val[256];

static void init_b64(void) {
    memset(b64val, -1, sizeof b64val);
    const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; i++)
        b64val[(unsigned char)a[i]] = (signed char)i;
}

static unsigned char *scratch;
static size_t scratch_cap;

/* parse_packed returns 1 with *pk filled, 0 when the line is not (exactly) the packed
   form, -1 on an error (memory). */
static int parse_packed(const char *s, Py_ssize_t len, Packed *pk) {
    const char *p = s, *end = s + len;
    pk->methods = NULL;
    if (!lit(&p, end, "{\"t\":") || !number(&p, end, &pk->t) || !lit(&p, end, ",\"w\":") ||
        !number(&p, end, &pk->w) || !lit(&p, end, ",\"m\":["))
        return 0;
    PyObject *methods = PyList_New(0);
    if (!methods)
        return -1;
    for (;;) {
        if (!lit(&p, end, "\""))
            goto no;
        const char *n0 = p;
        while (p < end && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            p++;
        const char *n1 = p;
        if (n1 == n0 || !lit(&p, end, "\""))
            goto no;
        PyObject *m = PyUnicode_FromStringAndSize(n0, n1 - n0);
        if (!m || PyList_Append(methods, m) < 0) {
            Py_XDECREF(m);
            goto fail;
        }
        Py_DECREF(m);
        if (lit(&p, end, "]"))
            break;
        if (!lit(&p, end, ","))
            goto no;
    }
    if (!lit(&p, end, ",\"p\":\""))
        goto no;
    const char *b0 = p;
    while (p < end && *p != '"')
        p++;
    const char *b1 = p;
    if (!lit(&p, end, "\"}") || p != end)
        goto no;
    size_t n = b1 - b0;
    if (n % 4 != 0 || n == 0)
        goto no;
    size_t pad = b1[-1] == '=' ? (b1[-2] == '=' ? 2 : 1) : 0;
    size_t nbytes = n / 4 * 3 - pad;
    if (nbytes % 4 != 0)
        goto no;
    if (scratch_cap < nbytes + 3) {
        unsigned char *b = PyMem_RawRealloc(scratch, nbytes + 3);
        if (!b) {
            PyErr_NoMemory();
            goto fail;
        }
        scratch = b;
        scratch_cap = nbytes + 3;
    }
    unsigned char *o = scratch;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            unsigned char c = (unsigned char)b0[i + k];
            if (c == '=' && i + 4 == n && k >= 4 - (int)pad)
                v[k] = 0;
            else if ((v[k] = b64val[c]) < 0)
                goto no;
        }
        unsigned int x = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
        *o++ = x >> 16;
        *o++ = (x >> 8) & 0xff;
        *o++ = x & 0xff;
    }
    if (pad && (b64val[(unsigned char)b1[-1 - pad]] & (pad == 1 ? 3 : 15)) != 0)
        goto no; /* non-canonical trailing bits: Python's decoder would not mind; leave it */
    pk->raw = scratch;
    pk->nraw = nbytes / 4;
    /* The calls must be whole: game, method index within m, n (-1: none), n args. */
    Py_ssize_t nm = PyList_GET_SIZE(methods);
    for (Py_ssize_t i = 0; i < pk->nraw;) {
        if (i + 2 >= pk->nraw)
            goto no;
        int32_t mi, k;
        memcpy(&mi, scratch + 4 * (i + 1), 4);
        memcpy(&k, scratch + 4 * (i + 2), 4);
#if PY_BIG_ENDIAN
        mi = __builtin_bswap32(mi);
        k = __builtin_bswap32(k);
#endif
        if (mi < 0 || mi >= nm)
            goto no;
        if (k < 0) {
            i += 3;
            continue;
        }
        if (k > pk->nraw - i - 3)
            goto no;
        i += 3 + k;
    }
    /* A tuple: the bot's code, which may reach it (gc), cannot change it under the loop. */
    pk->methods = PyList_AsTuple(methods);
    Py_DECREF(methods);
    return pk->methods ? 1 : -1;
no:
    Py_DECREF(methods);
    return 0;
fail:
    Py_DECREF(methods);
    return -1;
}

static inline int32_t raw_at(const Packed *pk, Py_ssize_t i) {
    int32_t v;
    memcpy(&v, pk->raw + 4 * i, 4);
#if PY_BIG_ENDIAN
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* ---- the reply line ---- */

static struct {
    char *buf;
    size_t len, cap;
} W;

static int out_grow(size_t more) {
    if (W.cap - W.len >= more)
        return 0;
    size_t cap = W.cap ? W.cap : 4096;
    while (cap - W.len < more)
        cap *= 2;
    char *b = PyMem_RawRealloc(W.buf, cap);
    if (!b) {
        PyErr_NoMemory();
        return -1;
    }
    W.buf = b;
    W.cap = cap;
    return 0;
}

static int out_put(const char *s, size_t n) {
    if (out_grow(n) < 0)
        return -1;
    memcpy(W.buf + W.len, s, n);
    W.len += n;
    return 0;
}

static int out_write(int fd) {
    size_t off = 0;
    while (off < W.len) {
        ssize_t n;
        int err;
        Py_BEGIN_ALLOW_THREADS
        n = write(fd, W.buf + off, W.len - off);
        err = errno;
        Py_END_ALLOW_THREADS
        errno = err;
        if (n < 0) {
            if (errno == EINTR) {
                if (PyErr_CheckSignals() < 0)
                    return -1;
                continue;
            }
            PyErr_SetFromErrno(PyExc_OSError);
            return -1;
        }
        off += n;
    }
    return 0;
}

/* ---- forty's dispatch (engine/forty/harness.py Handler.call's hot path, without its
   frame). Handler.FAST = ("forty", stream list, bot_time list, LostInstance); the
   Handler's games dict. ---- */

typedef struct {
    int on;
    PyObject *games, *stream, *bot_time, *lost;
} Forty;

static PyObject *s_bot, *s_turn, *s_update_state, *s_make_throw;

/* "bot_time[0] += dt", as timed_call's finally does it: an in-place add (its errors are
   that statement's), on the item held while its methods run (the bot's object, whose
   __add__ may let go of the list's reference to it), stored back by index. */
static int add_bot_time(PyObject *bot_time, double dt) {
    PyObject *cur = PySequence_GetItem(bot_time, 0);
    if (!cur)
        return -1;
    PyObject *d = PyFloat_FromDouble(dt);
    if (!d) {
        Py_DECREF(cur);
        return -1;
    }
    PyObject *v = PyNumber_InPlaceAdd(cur, d);
    Py_DECREF(d);
    Py_DECREF(cur);
    if (!v)
        return -1;
    int r = PySequence_SetItem(bot_time, 0, v);
    Py_DECREF(v);
    return r;
}

/* The bot's time of a call (kothd bench's split): "_bot_time[0] += t1 - t0", keeping the
   call's exception, as a finally would (an error of its own replaces the call's). */
static int add_bot_time_keep(const Forty *f, double dt) {
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    int r = add_bot_time(f->bot_time, dt);
    if (et) {
        if (r < 0) {
            Py_XDECREF(et);
            Py_XDECREF(ev);
            Py_XDECREF(tb);
            return -1;
        }
        PyErr_Restore(et, ev, tb);
        return -1;
    }
    return r;
}

/* Whether adding to bot_time[0] runs no Python code (a float's add): then the window's
   end is the call's (forty_call), else the clock is read again when it is done. */
static int plain_bot_time(const Forty *f) {
    return PyList_GET_SIZE(f->bot_time) > 0 && PyFloat_CheckExact(PyList_GET_ITEM(f->bot_time, 0));
}

/* forty_call: forty's Handler.call (timed: Handler.timed_call) for "next" and "start",
   without its frame. Returns 1 with *out set, 0 when the call is Handler.call's to serve
   (arguments not in the packed list form, or ones its slices would read otherwise), -1
   with an exception set. Timed, the bot's time is one window from its update_state to the
   end of its generator's step (two clock reads, where timed_call has four: the harness's
   few attribute reads between them are counted as the bot's), and *end is the window's
   end, which the loop takes as the call's, or 0 when code of the bot's may have run after
   it (a yielded value's __bool__, an object of its own in bot_time[0]): then the loop
   reads the clock, as the Python loop does after Handler.call. */
static int forty_call(const Forty *f, PyObject *game, int start, PyObject *a, int timed, PyObject **out, double *end) {
    Py_ssize_t n = 0;
    if (!PyList_CheckExact(a))
        return 0;
    if (start) {
        if (PyList_GET_SIZE(a) < 2 || !PyLong_CheckExact(PyList_GET_ITEM(a, 0)) || !PyLong_CheckExact(PyList_GET_ITEM(a, 1)))
            return 0;
        n = PyLong_AsSsize_t(PyList_GET_ITEM(a, 1));
        if (n == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (n < 0 || n + 2 > PyList_GET_SIZE(a))
            return 0; /* Python's slices read that otherwise: Handler.call's */
        n += 2;
    }
    if (!PyList_CheckExact(f->stream) || PyList_GET_SIZE(f->stream) < 1)
        return 0;
    PyObject *g = PyDict_GetItemWithError(f->games, game);
    if (!g) {
        if (PyErr_Occurred())
            return -1;
        /* Handler.call's own "%d" % game: the general form may name a game by any JSON
           value (2.5 is game 2, true game 1, a string a TypeError, not a lost game). */
        PyObject *fmt = PyUnicode_FromString("no instance for game %d (process restarted)");
        PyObject *msg = fmt ? PyUnicode_Format(fmt, game) : NULL;
        Py_XDECREF(fmt);
        if (msg) {
            PyErr_SetObject(f->lost, msg);
            Py_DECREF(msg);
        }
        return -1;
    }
    Py_INCREF(g); /* held across the bot's code, which may drop the game's record */
    Py_INCREF(g);
    PyList_SetItem(f->stream, 0, g); /* _stream[0] = g (steals one reference) */
    PyObject *bot = PyObject_GetAttr(g, s_bot);
    PyObject *throws = NULL, *scores = NULL, *turn = NULL, *v = NULL, *r = NULL;
    PyObject *last = Py_False;
    int res = -1, clocked = 0;
    double t0 = 0;
    if (!bot)
        goto done;
    if (start) {
        if (PyObject_SetAttr(g, s_turn, Py_None) < 0)
            goto done;
        throws = PyList_GetSlice(a, 2, n);
        scores = PyList_GetSlice(a, n, PyList_GET_SIZE(a));
        if (!throws || !scores)
            goto done;
        int nz = PyObject_IsTrue(PyList_GET_ITEM(a, 0)); /* a[0] != 0, an int's */
        if (nz < 0)
            goto done;
        last = nz ? Py_True : Py_False;
    }
    if (timed) {
        t0 = monotonic();
        clocked = 1;
    }
    {
        PyObject *u = PyObject_CallMethodOneArg(bot, s_update_state, start ? throws : a);
        if (!u)
            goto done;
        Py_DECREF(u);
    }
    if (start) {
        PyObject *args[3] = {bot, scores, last};
        PyObject *gen = PyObject_VectorcallMethod(s_make_throw, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (!gen)
            goto done;
        PyObject *it = PyObject_GetIter(gen);
        Py_DECREF(gen);
        if (!it)
            goto done;
        int ok = PyObject_SetAttr(g, s_turn, it) == 0;
        Py_DECREF(it);
        if (!ok)
            goto done;
    }
    turn = PyObject_GetAttr(g, s_turn);
    if (!turn)
        goto done;
    if (turn == Py_None) {
        r = Py_False;
        goto result;
    }
    if (!PyIter_Check(turn)) {
        PyErr_Format(PyExc_TypeError, "'%.200s' object is not an iterator", Py_TYPE(turn)->tp_name);
        goto done;
    }
    v = PyIter_Next(turn);
    if (!v) {
        if (PyErr_Occurred())
            goto done;
        /* StopIteration: the turn is over */
        if (PyObject_SetAttr(g, s_turn, Py_None) < 0)
            goto done;
        r = Py_False;
        goto result;
    }
    if (clocked) { /* bool(v) is outside the bot's time in timed_call, as a __bool__'s error is */
        double t1 = monotonic();
        clocked = 0;
        *end = plain_bot_time(f) ? t1 : 0;
        if (add_bot_time_keep(f, t1 - t0) < 0)
            goto done;
    }
    {
        int b = PyObject_IsTrue(v);
        if (b < 0)
            goto done;
        r = b ? Py_True : Py_False;
        if (!(PyBool_Check(v) || PyLong_CheckExact(v) || v == Py_None))
            *end = 0; /* a __bool__ may have run: the call ends when it has (one_call reads the clock) */
    }
result:
    Py_INCREF(r);
    *out = r;
    res = 1;
done:
    if (clocked) {
        double t1 = monotonic();
        *end = plain_bot_time(f) ? t1 : 0;
        if (add_bot_time_keep(f, t1 - t0) < 0 && res == 1) {
            Py_CLEAR(*out);
            res = -1;
        }
    }
    Py_XDECREF(throws);
    Py_XDECREF(scores);
    Py_XDECREF(v);
    Py_XDECREF(turn);
    Py_XDECREF(bot);
    Py_DECREF(g);
    return res;
}

/* ---- serve ---- */

static PyObject *s_in_calls, *s_n_calls, *s_n_sampled;

typedef struct {
    PyObject *call, *timed, *fault, *reply; /* timed serves the sampled calls */
    Forty forty;
    int measure;        /* time one call in this many (0: none; the setup line's "stats") */
    long long seen;     /* calls served since the loop started, for the sampling */
    Py_ssize_t batch_sampled; /* calls timed in the batch being served */
    PyObject *globals, *bot_time;
    double in_calls_total;
    long long n_calls, n_sampled;
    /* the batch's replies: a boolean's character, or the reply's JSON text */
    char *bools;
    PyObject **texts;
    Py_ssize_t cap;
} Loop;

static int grow_replies(Loop *L, Py_ssize_t n) {
    if (n <= L->cap)
        return 0;
    Py_ssize_t cap = L->cap ? L->cap : 64;
    while (cap < n)
        cap *= 2;
    char *b = PyMem_Realloc(L->bools, cap);
    if (!b)
        goto nomem;
    L->bools = b;
    PyObject **t = PyMem_Realloc(L->texts, cap * sizeof(PyObject *));
    if (!t)
        goto nomem;
    L->texts = t;
    L->cap = cap;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}

/* One call: its reply into L at k. Returns 0, or -1 with an exception that ends the loop
   (as one raised by the Python loop's own code ends it). */
static int one_call(Loop *L, Py_ssize_t k, PyObject *game, PyObject *method, int forty_kind, PyObject *args,
                    double limit, double wall, double *now, double *in_calls) {
    /* Signals that came while no Python code ran (the harness's C work, the wait for the
       batch while a thread of the bot used CPU and took the ticks: the kernel gives a tick
       to the thread that ran) have their handlers run here, outside the call, as the Python
       loop runs them in its own code: run first inside the call, a tick's handler would
       charge it the CPU used since the last tick handled and stop it at once. One atomic
       read when none came. */
    if (PyErr_CheckSignals() < 0)
        return -1;
    int timed = L->measure > 0 && L->seen++ % L->measure == 0;
    if (timed)
        L->batch_sampled++;
    S.call_cpu0 = S.last_cpu;
    S.call_wall0 = *now;
    S.in_call = 1;
    PyObject *r = NULL;
    int served = 0;
    double end = 0;
    if (forty_kind)
        served = forty_call(&L->forty, game, forty_kind == 2, args, timed, &r, &end);
    if (served == 0) {
        PyObject *cargs[3] = {game, method, args};
        r = PyObject_Vectorcall(timed ? L->timed : L->call, cargs, 3, NULL);
    }
    if (r) {
        *now = end > 0 ? end : monotonic();
        if (S.wall > 0 && *now - S.call_wall0 >= S.wall && *now - S.call_wall0 - host_wait() >= S.wall) {
            /* It ended as its wall limit ran out, before the alarm said so: the limit,
               not that race, decides (pyclass.py's _serve). */
            Py_DECREF(r);
            r = NULL;
            S.by_wall = 1;
            PyErr_SetNone(CallTimeout);
        }
    }
    S.in_call = 0;
    L->texts[k] = NULL;
    if (r) {
        if (timed)
            *in_calls += *now - S.call_wall0;
        if (r == Py_True)
            L->bools[k] = '1';
        else if (r == Py_False)
            L->bools[k] = '0';
        else {
            PyObject *t = PyObject_CallOneArg(L->reply, r);
            Py_DECREF(r);
            if (t) {
                L->texts[k] = t;
                return 0;
            }
            /* _reply raised what it does not turn into "bad output" itself (a result nested
               past the recursion limit, a MemoryError): in the Python loop _reply runs in the
               call's try, so that is the call's fault, and the loop goes on. */
            goto fault;
        }
        Py_DECREF(r);
        return 0;
    }
fault:;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyErr_NormalizeException(&et, &ev, &tb);
    if (tb && ev)
        PyException_SetTraceback(ev, tb);
    int by_wall = 0;
    if (ev && PyErr_GivenExceptionMatches(et, CallTimeout)) {
        by_wall = S.by_wall;
        S.by_wall = 0;
    }
    PyObject *t = NULL;
    if (ev) {
        PyObject *lw = PyFloat_FromDouble(limit), *ww = PyFloat_FromDouble(wall);
        if (lw && ww) {
            PyObject *fargs[4] = {ev, lw, ww, by_wall ? Py_True : Py_False};
            t = PyObject_Vectorcall(L->fault, fargs, 4, NULL);
        }
        Py_XDECREF(lw);
        Py_XDECREF(ww);
    } else
        PyErr_SetString(PyExc_SystemError, "a call failed without an exception");
    Py_XDECREF(et);
    Py_XDECREF(ev);
    Py_XDECREF(tb);
    if (!t)
        return -1;
    L->texts[k] = t;
    *now = monotonic();
    if (timed)
        *in_calls += *now - S.call_wall0;
    return 0;
}

static void drop_texts(Loop *L, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++)
        Py_CLEAR(L->texts[k]);
}

/* The reply line (pyclass.py's _send_replies) into W. */
static int reply_line(Loop *L, Py_ssize_t n, Py_ssize_t other) {
    W.len = 0;
    if (other == 0) {
        if (out_put("{\"b\":\"", 6) < 0 || out_put(L->bools, n) < 0 || out_put("\"}\n", 3) < 0)
            return -1;
        return 0;
    }
    if (out_put("{\"replies\":[", 12) < 0)
        return -1;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (k > 0 && out_put(",", 1) < 0)
            return -1;
        if (L->texts[k] == NULL) {
            if (L->bools[k] == '1' ? out_put("{\"r\":true}", 10) : out_put("{\"r\":false}", 11))
                return -1;
            continue;
        }
        Py_ssize_t len;
        const char *s = PyUnicode_AsUTF8AndSize(L->texts[k], &len);
        if (!s || out_put(s, len) < 0)
            return -1;
    }
    return out_put("]}\n", 3);
}

/* pyclass.py's _count_batch, into the module's _in_calls, _n_calls and _n_sampled (its
   stats line). */
static int count_batch(Loop *L, Py_ssize_t n, double in_calls, double span, double bot0) {
    L->n_calls += n;
    L->n_sampled += L->batch_sampled;
    double waited = S.sched_fd >= 0 ? (sched_wait() - S.batch_wait0) / 1e9 : 0.0;
    double keep = 1.0;
    if (span > 0 && waited > 0) {
        double x = waited / span;
        keep = 1.0 - (x < 0 ? 0 : x > 1 ? 1 : x);
    }
    L->in_calls_total += in_calls * keep;
    if (keep != 1.0 && L->bot_time) {
        if (!PyList_Check(L->bot_time) || PyList_GET_SIZE(L->bot_time) < 1) {
            PyErr_SetString(PyExc_TypeError, "bot_time is not a list");
            return -1;
        }
        PyObject *cur = PyList_GET_ITEM(L->bot_time, 0);
        double b = PyFloat_AsDouble(cur);
        if (b == -1 && PyErr_Occurred())
            return -1;
        PyObject *v = PyFloat_FromDouble(bot0 + (b - bot0) * keep);
        if (!v)
            return -1;
        PyList_SetItem(L->bot_time, 0, v);
    }
    PyObject *ic = PyFloat_FromDouble(L->in_calls_total), *nc = PyLong_FromLongLong(L->n_calls),
             *ns = PyLong_FromLongLong(L->n_sampled);
    int r = (ic && nc && ns && PyDict_SetItem(L->globals, s_in_calls, ic) == 0 &&
             PyDict_SetItem(L->globals, s_n_calls, nc) == 0 && PyDict_SetItem(L->globals, s_n_sampled, ns) == 0)
                ? 0
                : -1;
    Py_XDECREF(ic);
    Py_XDECREF(nc);
    Py_XDECREF(ns);
    return r;
}

static int forty_kind_of(const Loop *L, PyObject *method) {
    if (!L->forty.on || !PyUnicode_Check(method))
        return 0;
    if (PyUnicode_CompareWithASCIIString(method, "next") == 0)
        return 1;
    if (PyUnicode_CompareWithASCIIString(method, "start") == 0)
        return 2;
    return 0;
}

/* One batch. Returns 0, or -1 with an exception that ends the loop. */
static int batch(Loop *L, int out_fd, double limit, double wall, Packed *pk, PyObject *calls) {
    if (limit != S.limit || wall != S.wall)
        if (arm(limit, wall) < 0)
            return -1;
    L->batch_sampled = 0;
    if (wall > 0 || L->measure)
        S.batch_wait0 = sched_wait();
    double bot0 = 0;
    if (L->measure) {
        if (!PyList_Check(L->bot_time) || PyList_GET_SIZE(L->bot_time) < 1) {
            PyErr_SetString(PyExc_TypeError, "bot_time is not a list");
            return -1;
        }
        bot0 = PyFloat_AsDouble(PyList_GET_ITEM(L->bot_time, 0));
        if (bot0 == -1 && PyErr_Occurred())
            return -1;
    }
    double in_calls = 0;
    Py_ssize_t n = 0, other = 0;
    if (pk) {
        for (Py_ssize_t i = 0; i < pk->nraw;) {
            i += 3 + (raw_at(pk, i + 2) < 0 ? 0 : raw_at(pk, i + 2));
            n++;
        }
    } else
        n = PyList_GET_SIZE(calls);
    if (grow_replies(L, n) < 0)
        return -1;
    int kinds[8] = {0};
    if (pk) {
        Py_ssize_t nm = PyTuple_GET_SIZE(pk->methods);
        for (Py_ssize_t m = 0; m < nm && m < 8; m++)
            kinds[m] = forty_kind_of(L, PyTuple_GET_ITEM(pk->methods, m));
    }
    double now = monotonic(), batch0 = now;
    Py_ssize_t k = 0, i = 0;
    for (k = 0; k < n; k++) {
        PyObject *game, *method, *args;
        int kind;
        if (pk) {
            int32_t mi = raw_at(pk, i + 1), na = raw_at(pk, i + 2);
            game = PyLong_FromLong(raw_at(pk, i));
            method = PyTuple_GET_ITEM(pk->methods, mi);
            Py_INCREF(method);
            kind = mi < 8 ? kinds[mi] : forty_kind_of(L, method);
            if (na < 0) {
                args = Py_None;
                Py_INCREF(args);
                i += 3;
            } else {
                args = PyList_New(na);
                for (int32_t j = 0; args && j < na; j++) {
                    PyObject *x = PyLong_FromLong(raw_at(pk, i + 3 + j));
                    if (!x) {
                        Py_CLEAR(args);
                        break;
                    }
                    PyList_SET_ITEM(args, j, x);
                }
                i += 3 + na;
            }
            if (!game || !args) {
                Py_XDECREF(game);
                Py_XDECREF(args);
                Py_DECREF(method);
                goto fail;
            }
        } else {
            if (k >= PyList_GET_SIZE(calls)) { /* the bot's code reached the list (gc) */
                PyErr_SetString(PyExc_RuntimeError, "the batch's calls changed under the loop");
                goto fail;
            }
            PyObject *c = PyList_GET_ITEM(calls, k);
            if (!PyTuple_Check(c) || PyTuple_GET_SIZE(c) != 3) {
                PyErr_SetString(PyExc_TypeError, "_request: a call is not a (game, method, args) triple");
                goto fail;
            }
            game = PyTuple_GET_ITEM(c, 0);
            method = PyTuple_GET_ITEM(c, 1);
            args = PyTuple_GET_ITEM(c, 2);
            Py_INCREF(game);
            Py_INCREF(method);
            Py_INCREF(args);
            kind = forty_kind_of(L, method);
        }
        int r = one_call(L, k, game, method, kind, args, limit, wall, &now, &in_calls);
        Py_DECREF(game);
        Py_DECREF(method);
        Py_DECREF(args);
        if (r < 0)
            goto fail;
        if (L->texts[k])
            other++;
    }
    if (reply_line(L, n, other) < 0 || out_write(out_fd) < 0)
        goto fail;
    drop_texts(L, n);
    if (L->measure > 0 && count_batch(L, n, in_calls, now - batch0, bot0) < 0)
        return -1;
    return 0;
fail:
    drop_texts(L, k);
    return -1;
}

static int get_forty(Loop *L, PyObject *fast, PyObject *handler) {
    if (fast == Py_None)
        return 0;
    PyObject *kind, *stream, *bot_time, *lost;
    if (!PyArg_ParseTuple(fast, "OOOO", &kind, &stream, &bot_time, &lost))
        return -1;
    if (!PyUnicode_Check(kind) || PyUnicode_CompareWithASCIIString(kind, "forty") != 0)
        return 0; /* a dispatch this build does not know: the generic loop */
    PyObject *games = PyObject_GetAttrString(handler, "games");
    if (!games)
        return -1;
    if (!PyDict_CheckExact(games) || !PyList_CheckExact(stream) || !PyList_CheckExact(bot_time) || !PyType_Check(lost)) {
        Py_DECREF(games);
        return 0;
    }
    L->forty.on = 1;
    L->forty.games = games;
    Py_INCREF(stream);
    L->forty.stream = stream;
    Py_INCREF(bot_time);
    L->forty.bot_time = bot_time;
    Py_INCREF(lost);
    L->forty.lost = lost;
    return 0;
}

static PyObject *serve(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"in_fd", "out_fd", "call", "timed", "request", "fault", "reply", "globals",
                             "measure", "handler", "fast", "sched_fd", "timeout", NULL};
    int in_fd, out_fd, measure, sched_fd;
    PyObject *call, *timed, *request, *fault, *reply, *globals, *handler, *fast, *timeout;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "iiOOOOOO!iOOiO", kwlist, &in_fd, &out_fd, &call, &timed, &request,
                                     &fault, &reply, &PyDict_Type, &globals, &measure, &handler, &fast, &sched_fd,
                                     &timeout))
        return NULL;
    if (measure < 0) {
        PyErr_SetString(PyExc_ValueError, "measure must be 0 or more");
        return NULL;
    }
    if (S.serving) {
        PyErr_SetString(PyExc_RuntimeError, "the harness is serving already");
        return NULL;
    }
    if (!PyType_Check(timeout) || !PyType_IsSubtype((PyTypeObject *)timeout, (PyTypeObject *)PyExc_BaseException)) {
        PyErr_SetString(PyExc_TypeError, "timeout must be an exception class");
        return NULL;
    }
    S.serving = 1;
    /* Held for the loop: the caller's references (its keyword dict, the harness's globals)
       are within the bot's reach (gc), and what they name is called on every batch. */
    Py_INCREF(call);
    Py_INCREF(timed);
    Py_INCREF(request);
    Py_INCREF(fault);
    Py_INCREF(reply);
    Py_INCREF(globals);
    Loop L = {.call = call, .timed = timed, .fault = fault, .reply = reply, .measure = measure, .globals = globals};
    Py_INCREF(timeout);
    Py_XSETREF(CallTimeout, timeout);
    S.sched_fd = sched_fd;
    PyObject *result = NULL;
    if (get_forty(&L, fast, handler) < 0)
        goto out;
    L.bot_time = PyDict_GetItemString(globals, "bot_time");
    if (measure && (!L.bot_time || !PyList_Check(L.bot_time))) {
        PyErr_SetString(PyExc_TypeError, "bot_time is not a list");
        goto out;
    }
    Py_XINCREF(L.bot_time);
    for (;;) {
        const char *line;
        Py_ssize_t len;
        int r = read_line(in_fd, &line, &len);
        if (r < 0)
            goto out;
        if (r == 0)
            break;
        Packed pk;
        int p = parse_packed(line, len, &pk);
        if (p < 0)
            goto out;
        if (p == 1) {
            r = batch(&L, out_fd, pk.t, pk.w, &pk, NULL);
            Py_DECREF(pk.methods);
            if (r < 0)
                goto out;
            continue;
        }
        /* The general form, read by pyclass.py: None (a stats request, answered there),
           or (limit, wall, [(game, method, args), ...]). */
        PyObject *b = PyBytes_FromStringAndSize(line, len);
        if (!b)
            goto out;
        PyObject *req = PyObject_CallOneArg(request, b);
        Py_DECREF(b);
        if (!req)
            goto out;
        if (req == Py_None) {
            Py_DECREF(req);
            continue;
        }
        double limit, wall;
        PyObject *calls;
        if (!PyArg_ParseTuple(req, "ddO!", &limit, &wall, &PyList_Type, &calls)) {
            Py_DECREF(req);
            goto out;
        }
        r = batch(&L, out_fd, limit, wall, NULL, calls);
        Py_DECREF(req);
        if (r < 0)
            goto out;
    }
    result = Py_None;
    Py_INCREF(result);
out:
    /* finally: _disarm() */
    {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        if (arm(0.0, 0.0) < 0)
            PyErr_Clear();
        PyErr_Restore(et, ev, tb);
    }
    Py_XDECREF(L.forty.games);
    Py_XDECREF(L.forty.stream);
    Py_XDECREF(L.forty.bot_time);
    Py_XDECREF(L.forty.lost);
    Py_XDECREF(L.bot_time);
    Py_DECREF(call);
    Py_DECREF(timed);
    Py_DECREF(request);
    Py_DECREF(fault);
    Py_DECREF(reply);
    Py_DECREF(globals);
    PyMem_Free(L.bools);
    PyMem_Free(L.texts);
    S.serving = 0;
    return result;
}

static PyMethodDef methods[] = {
    {"serve", (PyCFunction)(void (*)(void))serve, METH_VARARGS | METH_KEYWORDS, "The batch loop (pyclass.py's _serve)."},
    {"readline", readline_, METH_VARARGS, "readline(fd): the next protocol line (bytes), or None at its end."},
    {"on_prof", on_prof, METH_VARARGS, "The SIGPROF handler: interrupts a call past its CPU limit."},
    {"on_alarm", on_alarm, METH_VARARGS, "The SIGALRM handler: interrupts a call past its wall limit."},
    {"untimed_enter", untimed_enter, METH_NOARGS, "pyclass.untimed's entry: (cpu0, wall0)."},
    {"untimed_exit", untimed_exit, METH_VARARGS, "pyclass.untimed's exit."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_pyclassfast", "kothd's pyclass harness batch loop in C.", -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__pyclassfast(void) {
    init_b64();
    if (!(s_bot = PyUnicode_InternFromString("bot")) || !(s_turn = PyUnicode_InternFromString("turn")) ||
        !(s_update_state = PyUnicode_InternFromString("update_state")) ||
        !(s_make_throw = PyUnicode_InternFromString("make_throw")) ||
        !(s_in_calls = PyUnicode_InternFromString("_in_calls")) || !(s_n_calls = PyUnicode_InternFromString("_n_calls")) ||
        !(s_n_sampled = PyUnicode_InternFromString("_n_sampled")))
        return NULL;
    return PyModule_Create(&module);
}
