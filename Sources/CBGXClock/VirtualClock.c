// Interposes the C library's clocks so that app code run by a simulated
// device reads the device's virtual time: Foundation's Date(), CFAbsoluteTime
// and ProcessInfo, and libdispatch's DispatchTime all end in these calls.
// Defined in the executable, these win over libc's for every shared library
// that calls them. The setting is per thread and off by default: every
// other thread, and this one outside app code, gets the real clock through
// dlsym(RTLD_NEXT), so nothing else in the process changes behaviour.
#define _GNU_SOURCE
// The interposition relies on ELF symbol resolution (a definition in the
// executable wins over libc's) and on Linux's clocks and syscalls. Elsewhere
// (macOS: two-level namespaces) app code keeps the real clocks, and only the
// functions Swift calls exist — see docs/bgxkit.md.
#if defined(__linux__)
#include "CBGXClock.h"

#include <dlfcn.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static __thread bgx_virtual_clock current;

/// A C library function looked up once; every thread stores the same pointer.
static void *resolve(void **slot, void *handle, const char *name) {
    void *function = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (function == NULL) {
        function = dlsym(handle, name);
        __atomic_store_n(slot, function, __ATOMIC_RELAXED);
    }
    return function;
}

bgx_virtual_clock bgx_virtual_clock_swap(bgx_virtual_clock clock) {
    bgx_virtual_clock previous = current;
    current = clock;
    return previous;
}

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static int real_clock_gettime(clockid_t id, struct timespec *ts) {
    static void *real_slot;
    clock_gettime_fn real = (clock_gettime_fn)resolve(&real_slot, RTLD_NEXT, "clock_gettime");
    if (real == NULL) return (int)syscall(SYS_clock_gettime, id, ts);
    return real(id, ts);
}

static int64_t read_ns(clockid_t id) {
    struct timespec ts;
    real_clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t bgx_real_realtime_ns(void) { return read_ns(CLOCK_REALTIME); }

/// The virtual reading for a clock, or -1 when this clock stays real.
static int64_t virtual_ns(clockid_t id) {
    if (!current.enabled) return -1;
    switch (id) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
        return current.realtime;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        return current.monotonic;
    default:
        return -1;  // CPU-time clocks measure this thread, not the device
    }
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int64_t ns = virtual_ns(id);
    // glibc declares `ts` nonnull: a NULL here is the caller's fault, as with the real one.
    if (ns < 0) return real_clock_gettime(id, ts);
    ts->tv_sec = (time_t)(ns / 1000000000);
    ts->tv_nsec = (long)(ns % 1000000000);
    return 0;
}

typedef int (*gettimeofday_fn)(struct timeval *restrict, void *restrict);
typedef time_t (*time_fn)(time_t *);

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    int64_t ns = virtual_ns(CLOCK_REALTIME);
    if (ns < 0) {
        static void *real_slot;
        gettimeofday_fn real = (gettimeofday_fn)resolve(&real_slot, RTLD_NEXT, "gettimeofday");
        if (real != NULL) return real(tv, tz);
        ns = read_ns(CLOCK_REALTIME);
    }
    // glibc declares `tv` nonnull, as for clock_gettime.
    tv->tv_sec = (time_t)(ns / 1000000000);
    tv->tv_usec = (suseconds_t)(ns % 1000000000 / 1000);
    return 0;
}

time_t time(time_t *out) {
    int64_t ns = virtual_ns(CLOCK_REALTIME);
    if (ns < 0) {
        static void *real_slot;
        time_fn real = (time_fn)resolve(&real_slot, RTLD_NEXT, "time");
        if (real != NULL) return real(out);
        ns = read_ns(CLOCK_REALTIME);
    }
    time_t seconds = (time_t)(ns / 1000000000);
    if (out != NULL) *out = seconds;
    return seconds;
}

// Sleeping in app code is the main thread blocked for that long in virtual
// time: the thread's clocks move on at once and the device counts the time as
// busy work. A real sleep would never end — Foundation's Thread.sleep loops
// until the (virtual, standing-still) clock has moved on.
static void advance(int64_t ns) {
    if (ns <= 0) return;
    current.realtime += ns;
    current.monotonic += ns;
}

typedef int (*nanosleep_fn)(const struct timespec *, struct timespec *);
typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);

int nanosleep(const struct timespec *request, struct timespec *remaining) {
    if (!current.enabled) {
        static void *real_slot;
        nanosleep_fn real = (nanosleep_fn)resolve(&real_slot, RTLD_NEXT, "nanosleep");
        if (real != NULL) return real(request, remaining);
        return (int)syscall(SYS_nanosleep, request, remaining);
    }
    if (request != NULL) advance((int64_t)request->tv_sec * 1000000000 + request->tv_nsec);
    if (remaining != NULL) remaining->tv_sec = remaining->tv_nsec = 0;
    return 0;
}

int clock_nanosleep(clockid_t id, int flags, const struct timespec *request, struct timespec *remaining) {
    int64_t now = virtual_ns(id);
    if (now < 0) {
        static void *real_slot;
        clock_nanosleep_fn real = (clock_nanosleep_fn)resolve(&real_slot, RTLD_NEXT, "clock_nanosleep");
        if (real != NULL) return real(id, flags, request, remaining);
        return (int)syscall(SYS_clock_nanosleep, id, flags, request, remaining);
    }
    if (request != NULL) {
        int64_t ns = (int64_t)request->tv_sec * 1000000000 + request->tv_nsec;
        advance((flags & TIMER_ABSTIME) ? ns - now : ns);
    }
    if (remaining != NULL) remaining->tv_sec = remaining->tv_nsec = 0;
    return 0;
}

typedef int (*usleep_fn)(useconds_t);
typedef unsigned int (*sleep_fn)(unsigned int);

int usleep(useconds_t microseconds) {
    if (!current.enabled) {
        static void *real_slot;
        usleep_fn real = (usleep_fn)resolve(&real_slot, RTLD_NEXT, "usleep");
        if (real != NULL) return real(microseconds);
    }
    struct timespec request = {(time_t)(microseconds / 1000000), (long)(microseconds % 1000000) * 1000};
    return nanosleep(&request, NULL);
}

unsigned int sleep(unsigned int seconds) {
    if (!current.enabled) {
        static void *real_slot;
        sleep_fn real = (sleep_fn)resolve(&real_slot, RTLD_NEXT, "sleep");
        if (real != NULL) return real(seconds);
    }
    struct timespec request = {(time_t)seconds, 0};
    return nanosleep(&request, NULL) == 0 ? 0 : seconds;
}

// The main queue in app code. libswiftDispatch's `DispatchQueue.main.async`
// and `asyncAfter(deadline:)` call these two; in app code the device runs
// the block on the app's main thread in virtual time instead (held while the
// app is suspended, dropped when it is terminated). Every other queue, and
// every caller outside app code, gets libdispatch's.
typedef void (*dispatch_async_fn)(void *, void *);
typedef void (*dispatch_after_fn)(uint64_t, void *, void *);
typedef void *(*block_copy_fn)(const void *);
typedef void (*block_release_fn)(const void *);

/// The start of every block (the blocks ABI): its function comes after two ints.
struct bgx_block_layout {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *);
};

static void *main_queue(void) {
    static void *queue;
    return resolve(&queue, RTLD_DEFAULT, "_dispatch_main_q");
}

static void *copy_block(void *block) {
    static void *copy_slot;
    block_copy_fn copy = (block_copy_fn)resolve(&copy_slot, RTLD_DEFAULT, "_Block_copy");
    return copy != NULL ? copy(block) : NULL;
}

void bgx_block_run(void *block) { ((struct bgx_block_layout *)block)->invoke(block); }

void bgx_block_release(void *block) {
    static void *release_slot;
    block_release_fn release = (block_release_fn)resolve(&release_slot, RTLD_DEFAULT, "_Block_release");
    if (release != NULL) release(block);
}

/// 1 when the device took the block.
static int schedule_on_device(uint64_t deadline, void *queue, void *block) {
    if (!current.enabled || current.schedule == NULL || queue == NULL || queue != main_queue()) return 0;
    // Wall-clock deadlines (DispatchWallTime) carry flag bits: not covered
    // yet. The device is told (INT64_MIN, no block) and refuses the block.
    if (deadline != 0 && deadline != UINT64_MAX && (deadline >> 62) != 0)
        return current.schedule(current.context, INT64_MIN, NULL);
    void *copy = copy_block(block);
    if (copy == NULL) return 0;
    int64_t when = deadline == UINT64_MAX ? INT64_MAX : (deadline == 0 ? current.monotonic : (int64_t)deadline);
    if (current.schedule(current.context, when, copy)) return 1;
    bgx_block_release(copy);
    return 0;
}

void dispatch_async(void *queue, void *block) {
    if (schedule_on_device(0, queue, block)) return;
    static void *real_slot;
    dispatch_async_fn real = (dispatch_async_fn)resolve(&real_slot, RTLD_NEXT, "dispatch_async");
    real(queue, block);
}

void dispatch_after(uint64_t deadline, void *queue, void *block) {
    if (schedule_on_device(deadline, queue, block)) return;
    static void *real_slot;
    dispatch_after_fn real = (dispatch_after_fn)resolve(&real_slot, RTLD_NEXT, "dispatch_after");
    real(deadline, queue, block);
}

#else  // not Linux: no interposition

#include "CBGXClock.h"
#include <time.h>

static __thread bgx_virtual_clock current;

bgx_virtual_clock bgx_virtual_clock_swap(bgx_virtual_clock clock) {
    bgx_virtual_clock previous = current;
    current = clock;
    return previous;
}

static int64_t read_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t bgx_real_realtime_ns(void) { return read_ns(CLOCK_REALTIME); }

// Nothing schedules blocks here (dispatch is not interposed), so these are
// never handed one; they exist so that the Swift side links.
void bgx_block_run(void *block) { (void)block; }
void bgx_block_release(void *block) { (void)block; }

#endif
