// LD_PRELOAD shim: shifts CLOCK_REALTIME (and only it) by the milliseconds written in the file
// $CLOCKSHIFT_FILE, as a step of the host clock would (NTP, `date -s`), while the monotonic
// clocks go on untouched. The test rewrites the file to step the clock; the shim reads it at
// most every 20 ms of monotonic time, so a busy daemon does not pay a read per call.
// Built by the clock-step tests: cc -shared -fPIC -O2 -o clockshift.so clockshift.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static _Atomic long long shift_ms;
static _Atomic long long next_read_ns;

static clock_gettime_fn real_clock_gettime(void) {
    static _Atomic(clock_gettime_fn) real;
    clock_gettime_fn fn = atomic_load(&real);
    if (!fn) {
        fn = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        atomic_store(&real, fn);
    }
    return fn;
}

static long long current_shift(void) {
    struct timespec mono;
    real_clock_gettime()(CLOCK_MONOTONIC, &mono);
    long long now = (long long)mono.tv_sec * 1000000000LL + mono.tv_nsec;
    if (now >= atomic_load(&next_read_ns)) {
        atomic_store(&next_read_ns, now + 20000000LL);
        const char *path = getenv("CLOCKSHIFT_FILE");
        int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {
            char text[32] = {0};
            ssize_t count = read(fd, text, sizeof text - 1);
            close(fd);
            if (count > 0) atomic_store(&shift_ms, strtoll(text, NULL, 10));
        }
    }
    return atomic_load(&shift_ms);
}

static void shift(struct timespec *spec) {
    long long ns = (long long)spec->tv_sec * 1000000000LL + spec->tv_nsec + current_shift() * 1000000LL;
    spec->tv_sec = ns / 1000000000LL;
    spec->tv_nsec = ns % 1000000000LL;
    if (spec->tv_nsec < 0) { spec->tv_nsec += 1000000000LL; spec->tv_sec -= 1; }
}

int clock_gettime(clockid_t id, struct timespec *spec) {
    int result = real_clock_gettime()(id, spec);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(spec);
    return result;
}

int gettimeofday(struct timeval *tv, void *tz) {
    (void)tz;
    struct timespec spec;
    int result = clock_gettime(CLOCK_REALTIME, &spec);
    // glibc declares `tv` nonnull, but a caller may still pass NULL.
    struct timeval *volatile out = tv;
    if (result == 0 && out) {
        out->tv_sec = spec.tv_sec;
        out->tv_usec = spec.tv_nsec / 1000;
    }
    return result;
}

time_t time(time_t *out) {
    struct timespec spec;
    clock_gettime(CLOCK_REALTIME, &spec);
    if (out) *out = spec.tv_sec;
    return spec.tv_sec;
}
