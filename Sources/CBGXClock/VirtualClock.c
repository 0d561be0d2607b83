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
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
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

/// A sleep in app code: on an app thread the device parks the thread and
/// wakes it at the deadline in virtual time (other app threads and the
/// device's own events run meanwhile); elsewhere the clocks move on at once.
static void sleep_for(int64_t ns) {
    if (ns <= 0) return;
    if (current.dispatch != NULL &&
        current.dispatch(current.context, BGX_SLEEP, 0, current.monotonic + ns, (bgx_work){0}, NULL)) return;
    advance(ns);
}

int nanosleep(const struct timespec *request, struct timespec *remaining) {
    if (!current.enabled) {
        static void *real_slot;
        nanosleep_fn real = (nanosleep_fn)resolve(&real_slot, RTLD_NEXT, "nanosleep");
        if (real != NULL) return real(request, remaining);
        return (int)syscall(SYS_nanosleep, request, remaining);
    }
    if (request != NULL) sleep_for((int64_t)request->tv_sec * 1000000000 + request->tv_nsec);
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
        sleep_for((flags & TIMER_ABSTIME) ? ns - now : ns);
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

// Dispatch queues in app code. libswiftDispatch's `DispatchQueue` methods,
// `DispatchGroup`, `DispatchSemaphore` and `DispatchWorkItem` (and Foundation's
// OperationQueue, built on them) call the functions below; in app code the
// device takes the work instead of libdispatch and runs it as jobs of the
// app in virtual time: main-queue work on the app's main thread, every other
// queue's on its background thread (one at a time, in submission order, so
// runs are deterministic). Waits run the app's queued work inline until what
// they wait for holds or their deadline passes in virtual time. Every other
// thread, and this one outside app code, gets libdispatch's.
typedef void (*dispatch_async_fn)(void *, void *);
typedef void (*dispatch_async_f_fn)(void *, void *, void (*)(void *));
typedef void (*dispatch_after_fn)(uint64_t, void *, void *);
typedef void (*dispatch_after_f_fn)(uint64_t, void *, void *, void (*)(void *));
typedef void (*dispatch_group_async_fn)(void *, void *, void *);
typedef void (*dispatch_group_notify_fn)(void *, void *, void *);
typedef long (*dispatch_wait_fn)(void *, uint64_t);
typedef void (*dispatch_object_fn)(void *);
typedef void (*dispatch_apply_fn)(size_t, void *, void *);
typedef void (*dispatch_block_notify_fn)(void *, void *, void *);
typedef void *(*dispatch_source_create_fn)(const void *, uintptr_t, uintptr_t, void *);
typedef void *(*block_copy_fn)(const void *);
typedef void (*block_release_fn)(const void *);

/// The start of every block (the blocks ABI): its function comes after two ints.
struct bgx_block_layout {
    void *isa;
    int flags;
    int reserved;
    void (*invoke)(void *, ...);
};

#define REAL(type, name) ((type)resolve(&name##_slot, RTLD_NEXT, #name))
#define SLOT(name) static void *name##_slot

static void *main_queue(void) {
    static void *queue;
    return resolve(&queue, RTLD_DEFAULT, "_dispatch_main_q");
}

static void *copy_block(void *block) {
    static void *copy_slot;
    block_copy_fn copy = (block_copy_fn)resolve(&copy_slot, RTLD_DEFAULT, "_Block_copy");
    return copy != NULL ? copy(block) : NULL;
}

static void release_block(void *block) {
    static void *release_slot;
    block_release_fn release = (block_release_fn)resolve(&release_slot, RTLD_DEFAULT, "_Block_release");
    if (release != NULL) release(block);
}

static void retain_object(void *object) {
    static void *slot;
    dispatch_object_fn retain = (dispatch_object_fn)resolve(&slot, RTLD_DEFAULT, "dispatch_retain");
    if (retain != NULL && object != NULL) retain(object);
}

static void release_object(void *object) {
    static void *slot;
    dispatch_object_fn release = (dispatch_object_fn)resolve(&slot, RTLD_DEFAULT, "dispatch_release");
    if (release != NULL && object != NULL) release(object);
}

SLOT(dispatch_group_enter);
SLOT(dispatch_group_leave);
SLOT(dispatch_group_wait);
SLOT(dispatch_semaphore_wait);
SLOT(dispatch_block_wait);

void bgx_work_run(bgx_work work) {
    if (work.block != NULL) ((struct bgx_block_layout *)work.block)->invoke(work.block);
    else if (work.function != NULL) work.function(work.argument);
}

void bgx_work_release(bgx_work work) {
    if (work.block != NULL) release_block(work.block);
    if (work.group != NULL) {
        REAL(dispatch_object_fn, dispatch_group_leave)(work.group);
        release_object(work.group);
    }
}

void bgx_object_retain(void *object) { retain_object(object); }
void bgx_object_release(void *object) { release_object(object); }

int bgx_real_group_is_empty(void *group) {
    return REAL(dispatch_wait_fn, dispatch_group_wait)(group, 0) == 0;
}
int bgx_real_semaphore_try(void *semaphore) {
    return REAL(dispatch_wait_fn, dispatch_semaphore_wait)(semaphore, 0) == 0;
}
int bgx_real_block_try_wait(void *block) {
    return REAL(dispatch_wait_fn, dispatch_block_wait)(block, 0) == 0;
}

static __thread void *app_thread;
void bgx_set_app_thread(void *thread) { app_thread = thread; }
void *bgx_app_thread(void) { return app_thread; }

// Which queues run blocks concurrently: global queues, and queues made with
// a concurrent attribute (libdispatch keeps that to itself, so the
// attributes app code builds and the queues made from them are noted as
// they are made). A small set under a lock: queues are made rarely.
struct pointer_set {
    void **items;
    size_t count, capacity;
};
static pthread_mutex_t queues_lock = PTHREAD_MUTEX_INITIALIZER;
static void set_insert(struct pointer_set *set, void *pointer);
static struct pointer_set concurrent_attributes, concurrent_queues;

// This file's own locks take the C library's mutex directly (its
// pthread_mutex_lock below is app code's).
typedef int (*mutex_fn)(pthread_mutex_t *);
SLOT(pthread_mutex_lock);
SLOT(pthread_mutex_trylock);
SLOT(pthread_mutex_unlock);
static void lock_queues(void) { REAL(mutex_fn, pthread_mutex_lock)(&queues_lock); }
static void unlock_queues(void) { REAL(mutex_fn, pthread_mutex_unlock)(&queues_lock); }

// The kernel thread ids of app threads parked now (a sleep, a wait): a
// mutex one of them holds stays held until the device wakes it.
static struct pointer_set parked_threads;
static __thread pid_t thread_id;
void bgx_app_thread_parked(int parked) {
    if (thread_id == 0) thread_id = (pid_t)syscall(SYS_gettid);
    void *key = (void *)(intptr_t)thread_id;
    lock_queues();
    if (parked) {
        set_insert(&parked_threads, key);
    } else {
        for (size_t i = 0; i < parked_threads.count; i++) {
            if (parked_threads.items[i] != key) continue;
            parked_threads.items[i] = parked_threads.items[--parked_threads.count];
            break;
        }
    }
    unlock_queues();
}

static int set_contains(struct pointer_set *set, void *pointer) {
    for (size_t i = 0; i < set->count; i++)
        if (set->items[i] == pointer) return 1;
    return 0;
}

static void set_insert(struct pointer_set *set, void *pointer) {
    if (pointer == NULL || set_contains(set, pointer)) return;
    if (set->count == set->capacity) {
        size_t capacity = set->capacity ? set->capacity * 2 : 16;
        void **items = realloc(set->items, capacity * sizeof *items);
        if (items == NULL) return;
        set->items = items;
        set->capacity = capacity;
    }
    set->items[set->count++] = pointer;
}

static int attribute_is_concurrent(void *attribute) {
    static void *concurrent;
    if (attribute == NULL) return 0;
    if (attribute == resolve(&concurrent, RTLD_DEFAULT, "_dispatch_queue_attr_concurrent")) return 1;
    lock_queues();
    int found = set_contains(&concurrent_attributes, attribute);
    unlock_queues();
    return found;
}

static void note(struct pointer_set *set, void *pointer) {
    lock_queues();
    set_insert(set, pointer);
    unlock_queues();
}

/// A queue made now: noted as concurrent or not (a serial queue may reuse a freed concurrent one's address).
static void note_queue(void *queue, void *attribute) {
    int concurrent = attribute_is_concurrent(attribute);
    lock_queues();
    if (concurrent) {
        set_insert(&concurrent_queues, queue);
    } else {
        for (size_t i = 0; i < concurrent_queues.count; i++) {
            if (concurrent_queues.items[i] != queue) continue;
            concurrent_queues.items[i] = concurrent_queues.items[--concurrent_queues.count];
            break;
        }
    }
    unlock_queues();
}

static int queue_is_concurrent(void *queue) {
    lock_queues();
    int found = set_contains(&concurrent_queues, queue);
    unlock_queues();
    return found;
}

typedef void *(*attr_qos_fn)(void *, unsigned int, int);
typedef void *(*attr_one_fn)(void *);
typedef void *(*attr_long_fn)(void *, unsigned long);
typedef void *(*attr_bool_fn)(void *, _Bool);
typedef void *(*queue_create_fn)(const char *, void *);
typedef void *(*queue_create_target_fn)(const char *, void *, void *);
typedef void *(*global_queue_fn)(long, unsigned long);

#define DERIVED_ATTRIBUTE(type, name, params, args)                      \
    void *name params {                                                 \
        SLOT(name);                                                     \
        void *made = REAL(type, name) args;                             \
        if (attribute_is_concurrent(attribute)) note(&concurrent_attributes, made); \
        return made;                                                    \
    }
DERIVED_ATTRIBUTE(attr_qos_fn, dispatch_queue_attr_make_with_qos_class,
                  (void *attribute, unsigned int qos, int priority), (attribute, qos, priority))
DERIVED_ATTRIBUTE(attr_one_fn, dispatch_queue_attr_make_initially_inactive, (void *attribute), (attribute))
DERIVED_ATTRIBUTE(attr_long_fn, dispatch_queue_attr_make_with_autorelease_frequency,
                  (void *attribute, unsigned long frequency), (attribute, frequency))
DERIVED_ATTRIBUTE(attr_bool_fn, dispatch_queue_attr_make_with_overcommit,
                  (void *attribute, _Bool overcommit), (attribute, overcommit))

void *dispatch_queue_create(const char *label, void *attribute) {
    SLOT(dispatch_queue_create);
    void *queue = REAL(queue_create_fn, dispatch_queue_create)(label, attribute);
    note_queue(queue, attribute);
    return queue;
}

void *dispatch_queue_create_with_target(const char *label, void *attribute, void *target) {
    SLOT(dispatch_queue_create_with_target);
    void *queue = REAL(queue_create_target_fn, dispatch_queue_create_with_target)(label, attribute, target);
    note_queue(queue, attribute);
    return queue;
}

void *dispatch_get_global_queue(long priority, unsigned long flags) {
    SLOT(dispatch_get_global_queue);
    void *queue = REAL(global_queue_fn, dispatch_get_global_queue)(priority, flags);
    if (!queue_is_concurrent(queue)) note(&concurrent_queues, queue);
    return queue;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
SLOT(pthread_create);

int bgx_real_pthread_create(void *thread, void *(*start)(void *), void *argument, size_t stack_size) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    if (stack_size > 0) pthread_attr_setstacksize(&attributes, stack_size);
    int result = REAL(pthread_create_fn, pthread_create)((pthread_t *)thread, &attributes, start, argument);
    pthread_attr_destroy(&attributes);
    return result;
}

void bgx_virtual_clock_advance_to(int64_t monotonic) { advance(monotonic - current.monotonic); }
int64_t bgx_virtual_clock_monotonic(void) { return current.monotonic; }
void *bgx_app_code_context(void) { return NULL; }

static int in_app_code(void) { return current.enabled && current.dispatch != NULL; }


/// The deadline in the device's monotonic nanoseconds; INT64_MIN for a
/// wall-clock one (DispatchWallTime carries flag bits), which is not covered.
static int64_t device_deadline(uint64_t deadline) {
    if (deadline == UINT64_MAX) return INT64_MAX;
    if (deadline == 0) return current.monotonic;
    if ((deadline >> 62) == 3) return INT64_MIN;  // wall clock: both flag bits
    // Uptime, or the monotonic clock (bit 63, what Swift concurrency's
    // sleeps use): on the device both are its uptime.
    return (int64_t)(deadline & ~(1ULL << 63));
}

/// 1 when the device took the work (the block copied, the group entered).
static int submit(uint64_t deadline, void *queue, void *block, void (*function)(void *), void *argument,
                  void *group) {
    if (!in_app_code() || queue == NULL) return 0;
    int64_t when = device_deadline(deadline);
    bgx_work work = {NULL, function, argument, NULL};
    if (when == INT64_MIN) return current.dispatch(current.context, BGX_SUBMIT_REFUSED_WALL, 0, when, work, NULL);
    if (block != NULL && (work.block = copy_block(block)) == NULL) return 0;
    if (group != NULL) {
        REAL(dispatch_object_fn, dispatch_group_enter)(group);
        retain_object(group);
        work.group = group;
    }
    int where = queue == main_queue() ? BGX_ON_MAIN : queue_is_concurrent(queue) ? BGX_CONCURRENT : 0;
    return current.dispatch(current.context, BGX_SUBMIT, where, when, work, queue);
}

void dispatch_async(void *queue, void *block) {
    if (submit(0, queue, block, NULL, NULL, NULL)) return;
    SLOT(dispatch_async);
    REAL(dispatch_async_fn, dispatch_async)(queue, block);
}

void dispatch_barrier_async(void *queue, void *block) {
    if (submit(0, queue, block, NULL, NULL, NULL)) return;
    SLOT(dispatch_barrier_async);
    REAL(dispatch_async_fn, dispatch_barrier_async)(queue, block);
}

void dispatch_async_f(void *queue, void *argument, void (*function)(void *)) {
    if (submit(0, queue, NULL, function, argument, NULL)) return;
    SLOT(dispatch_async_f);
    REAL(dispatch_async_f_fn, dispatch_async_f)(queue, argument, function);
}

void dispatch_after(uint64_t deadline, void *queue, void *block) {
    if (submit(deadline, queue, block, NULL, NULL, NULL)) return;
    SLOT(dispatch_after);
    REAL(dispatch_after_fn, dispatch_after)(deadline, queue, block);
}

void dispatch_after_f(uint64_t deadline, void *queue, void *argument, void (*function)(void *)) {
    if (submit(deadline, queue, NULL, function, argument, NULL)) return;
    SLOT(dispatch_after_f);
    REAL(dispatch_after_f_fn, dispatch_after_f)(deadline, queue, argument, function);
}

void dispatch_group_async(void *group, void *queue, void *block) {
    if (submit(0, queue, block, NULL, NULL, group)) return;
    SLOT(dispatch_group_async);
    REAL(dispatch_group_async_fn, dispatch_group_async)(group, queue, block);
}

// Synchronous submission in app code runs the block now, on this thread: the
// device runs one job at a time, so nothing else can be on that queue.
#define RUN_INLINE_OR_REAL(name)                                                        \
    void name(void *queue, void *block) {                                               \
        if (in_app_code()) { ((struct bgx_block_layout *)block)->invoke(block); return; } \
        SLOT(name);                                                                     \
        REAL(dispatch_async_fn, name)(queue, block);                                    \
    }
RUN_INLINE_OR_REAL(dispatch_sync)
RUN_INLINE_OR_REAL(dispatch_barrier_sync)
RUN_INLINE_OR_REAL(dispatch_async_and_wait)

void dispatch_sync_f(void *queue, void *argument, void (*function)(void *)) {
    if (in_app_code()) { function(argument); return; }
    SLOT(dispatch_sync_f);
    REAL(dispatch_async_f_fn, dispatch_sync_f)(queue, argument, function);
}

/// `DispatchQueue.concurrentPerform`: the iterations in order, on this thread.
void dispatch_apply(size_t iterations, void *queue, void *block) {
    if (in_app_code()) {
        void (*invoke)(void *, size_t) = (void (*)(void *, size_t))((struct bgx_block_layout *)block)->invoke;
        for (size_t i = 0; i < iterations; i++) invoke(block, i);
        return;
    }
    SLOT(dispatch_apply);
    REAL(dispatch_apply_fn, dispatch_apply)(iterations, queue, block);
}

void dispatch_group_enter(void *group) {
    REAL(dispatch_object_fn, dispatch_group_enter)(group);
    if (in_app_code()) current.dispatch(current.context, BGX_GROUP_ENTERED, 0, 0, (bgx_work){0}, group);
}

void dispatch_group_leave(void *group) {
    REAL(dispatch_object_fn, dispatch_group_leave)(group);
    if (in_app_code()) current.dispatch(current.context, BGX_GROUP_LEFT, 0, 0, (bgx_work){0}, group);
}

void dispatch_group_notify(void *group, void *queue, void *block) {
    if (in_app_code() && queue != NULL) {
        bgx_work work = {copy_block(block), NULL, NULL, NULL};
        retain_object(group);
        if (work.block != NULL &&
            current.dispatch(current.context, BGX_NOTIFY_GROUP, queue == main_queue(), 0, work, group)) return;
        release_object(group);
        if (work.block != NULL) release_block(work.block);
    }
    SLOT(dispatch_group_notify);
    REAL(dispatch_group_notify_fn, dispatch_group_notify)(group, queue, block);
}

void dispatch_block_notify(void *block, void *queue, void *notification) {
    if (in_app_code() && queue != NULL) {
        bgx_work work = {copy_block(notification), NULL, NULL, NULL};
        void *observed = copy_block(block);
        if (work.block != NULL && observed != NULL &&
            current.dispatch(current.context, BGX_NOTIFY_BLOCK, queue == main_queue(), 0, work, observed)) return;
        if (observed != NULL) release_block(observed);
        if (work.block != NULL) release_block(work.block);
    }
    SLOT(dispatch_block_notify);
    REAL(dispatch_block_notify_fn, dispatch_block_notify)(block, queue, notification);
}

/// A wait in app code: the device runs queued work until it holds or the
/// deadline passes in virtual time; 0 when it holds, as libdispatch answers.
static long wait_on_device(int kind, void *object, uint64_t timeout) {
    int64_t deadline = device_deadline(timeout);
    return current.dispatch(current.context, kind, 0, deadline, (bgx_work){0}, object) ? 0 : 1;
}

long dispatch_group_wait(void *group, uint64_t timeout) {
    if (in_app_code()) return wait_on_device(BGX_WAIT_GROUP, group, timeout);
    return REAL(dispatch_wait_fn, dispatch_group_wait)(group, timeout);
}

long dispatch_semaphore_wait(void *semaphore, uint64_t timeout) {
    if (in_app_code()) return wait_on_device(BGX_WAIT_SEMAPHORE, semaphore, timeout);
    return REAL(dispatch_wait_fn, dispatch_semaphore_wait)(semaphore, timeout);
}

long dispatch_block_wait(void *block, uint64_t timeout) {
    if (in_app_code()) return wait_on_device(BGX_WAIT_BLOCK, block, timeout);
    return REAL(dispatch_wait_fn, dispatch_block_wait)(block, timeout);
}

// Run-loop timers in app code (`Timer.scheduledTimer`, `RunLoop.main.add`).
// Nothing runs the device thread's run loop, so the device fires them itself
// in virtual time: it learns each timer's callout when app code makes one and
// takes the timer when app code adds it to a run loop; the fire date,
// interval and validity stay CoreFoundation's (`fireDate`, `invalidate()`
// work as they do on iOS). Foundation calls these through the PLT, so the
// definitions here win, as for the clocks.
typedef void *(*cf_timer_create_fn)(void *, double, double, unsigned long, long, void *, void *);
typedef void (*cf_add_timer_fn)(void *, void *, void *);
typedef void *(*cf_get_run_loop_fn)(void);
typedef double (*cf_timer_date_fn)(void *);
typedef void (*cf_timer_set_date_fn)(void *, double);
typedef unsigned char (*cf_timer_bool_fn)(void *);
typedef void (*cf_object_fn)(void *);
typedef void *(*cf_retain_fn)(void *);
typedef struct {
    long version;
    void *info;
    const void *(*retain)(const void *);
    void (*release)(const void *);
    void *(*copy_description)(const void *);
} cf_timer_context;
typedef void (*cf_timer_get_context_fn)(void *, cf_timer_context *);
typedef void (*cf_timer_callout)(void *, void *);

#define CF(type, name) ((type)resolve(&name##_slot, RTLD_DEFAULT, #name))

void *CFRunLoopTimerCreate(void *allocator, double fire_date, double interval, unsigned long flags, long order,
                           void *callout, void *context) {
    SLOT(CFRunLoopTimerCreate);
    void *timer = REAL(cf_timer_create_fn, CFRunLoopTimerCreate)(allocator, fire_date, interval, flags, order,
                                                                callout, context);
    if (in_app_code() && timer != NULL) {
        bgx_work work = {NULL, (void (*)(void *))callout, NULL, NULL};
        current.dispatch(current.context, BGX_RUN_LOOP_TIMER_CREATED, 0, 0, work, timer);
    }
    return timer;
}

void CFRunLoopAddTimer(void *run_loop, void *timer, void *mode) {
    if (in_app_code() && timer != NULL) {
        SLOT(CFRunLoopGetMain);
        SLOT(CFRunLoopGetCurrent);
        int where = run_loop == CF(cf_get_run_loop_fn, CFRunLoopGetMain)() ? 1
                    : run_loop == CF(cf_get_run_loop_fn, CFRunLoopGetCurrent)() ? 2 : 0;
        if (current.dispatch(current.context, BGX_RUN_LOOP_TIMER_ADDED, where, 0, (bgx_work){0}, timer)) return;
    }
    SLOT(CFRunLoopAddTimer);
    REAL(cf_add_timer_fn, CFRunLoopAddTimer)(run_loop, timer, mode);
}

SLOT(CFRunLoopTimerGetNextFireDate);
SLOT(CFRunLoopTimerSetNextFireDate);
SLOT(CFRunLoopTimerGetInterval);
SLOT(CFRunLoopTimerIsValid);
SLOT(CFRunLoopTimerInvalidate);
SLOT(CFRunLoopTimerGetContext);
SLOT(CFRetain);
SLOT(CFRelease);

double bgx_run_loop_timer_next_fire_date(void *timer) {
    return CF(cf_timer_date_fn, CFRunLoopTimerGetNextFireDate)(timer);
}
void bgx_run_loop_timer_set_next_fire_date(void *timer, double date) {
    CF(cf_timer_set_date_fn, CFRunLoopTimerSetNextFireDate)(timer, date);
}
double bgx_run_loop_timer_interval(void *timer) { return CF(cf_timer_date_fn, CFRunLoopTimerGetInterval)(timer); }
int bgx_run_loop_timer_is_valid(void *timer) { return CF(cf_timer_bool_fn, CFRunLoopTimerIsValid)(timer) != 0; }
void bgx_run_loop_timer_invalidate(void *timer) { CF(cf_object_fn, CFRunLoopTimerInvalidate)(timer); }
void bgx_run_loop_timer_fire(void *timer, void *callout) {
    cf_timer_context context = {0};
    CF(cf_timer_get_context_fn, CFRunLoopTimerGetContext)(timer, &context);
    ((cf_timer_callout)callout)(timer, context.info);
}
void bgx_cf_retain(void *object) { CF(cf_retain_fn, CFRetain)(object); }
void bgx_cf_release(void *object) { CF(cf_object_fn, CFRelease)(object); }

/// CoreFoundation arms a timerfd for a run loop's next timer: in app code
/// that is a run-loop timer the device did not take (one made outside app
/// code), which nothing on the device thread runs — said so rather than left silent.
typedef int (*timerfd_settime_fn)(int, int, const void *, void *);
int timerfd_settime(int fd, int flags, const void *value, void *old) {
    if (in_app_code()) current.dispatch(current.context, BGX_ESCAPED_RUN_LOOP_TIMER, 0, 0, (bgx_work){0}, NULL);
    SLOT(timerfd_settime);
    return REAL(timerfd_settime_fn, timerfd_settime)(fd, flags, value, old);
}

// Randomness in app code (Swift's SystemRandomNumberGenerator, so
// `Double.random(in:)` and `.shuffled()`, and whatever else asks the kernel)
// comes from the process's seeded generator: the same scenario and seed give
// the same numbers. splitmix64.
static uint64_t next_random(void) {
    uint64_t z = (*current.random += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void fill_random(void *buffer, size_t length) {
    unsigned char *bytes = buffer;
    while (length > 0) {
        uint64_t value = next_random();
        size_t n = length < sizeof value ? length : sizeof value;
        for (size_t i = 0; i < n; i++) bytes[i] = (unsigned char)(value >> (8 * i));
        bytes += n;
        length -= n;
    }
}

static int seeded(void) { return current.enabled && current.random != NULL; }

typedef ssize_t (*getrandom_fn)(void *, size_t, unsigned int);
typedef int (*getentropy_fn)(void *, size_t);
typedef void (*arc4random_buf_fn)(void *, size_t);

ssize_t getrandom(void *buffer, size_t length, unsigned int flags) {
    if (seeded()) {
        fill_random(buffer, length);
        return (ssize_t)length;
    }
    SLOT(getrandom);
    getrandom_fn real = REAL(getrandom_fn, getrandom);
    if (real != NULL) return real(buffer, length, flags);
    return (ssize_t)syscall(SYS_getrandom, buffer, length, flags);
}

int getentropy(void *buffer, size_t length) {
    if (seeded()) {
        fill_random(buffer, length);
        return 0;
    }
    SLOT(getentropy);
    getentropy_fn real = REAL(getentropy_fn, getentropy);
    if (real != NULL) return real(buffer, length);
    return getrandom(buffer, length, 0) == (ssize_t)length ? 0 : -1;
}

void arc4random_buf(void *buffer, size_t length) {
    if (!seeded()) {
        SLOT(arc4random_buf);
        arc4random_buf_fn real = REAL(arc4random_buf_fn, arc4random_buf);
        if (real != NULL) { real(buffer, length); return; }
        (void)getrandom(buffer, length, 0);
        return;
    }
    fill_random(buffer, length);
}

/// Swift's runtime asks the kernel directly (`syscall(SYS_getrandom, …)`,
/// behind `SystemRandomNumberGenerator` and Foundation's `UUID()`). Every
/// other system call, and this one outside app code, goes through unchanged
/// (up to six arguments, as the kernel takes).
typedef long (*syscall_fn)(long, ...);
long syscall(long number, ...) {
    va_list list;
    va_start(list, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(list, long);
    va_end(list);
    if (number == SYS_getrandom && seeded()) {
        fill_random((void *)a[0], (size_t)a[1]);
        return a[1];
    }
    SLOT(syscall);
    return REAL(syscall_fn, syscall)(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/// Foundation's `UUID()` reads /dev/urandom through this function of its own;
/// in app code it is a version-4 UUID from the seeded generator.
typedef void (*uuid_generate_fn)(unsigned char *);
void _foundation_uuid_generate_random(unsigned char *out) {
    if (seeded()) {
        fill_random(out, 16);
        out[6] = (unsigned char)((out[6] & 0x0F) | 0x40);
        out[8] = (unsigned char)((out[8] & 0x3F) | 0x80);
        return;
    }
    SLOT(_foundation_uuid_generate_random);
    REAL(uuid_generate_fn, _foundation_uuid_generate_random)(out);
}

// Locks and conditions in app code. A thread that finds a mutex held (by a
// thread parked in a sleep or wait while holding it) cannot block for real:
// the holder never runs again while it does. On an app thread it parks
// instead until the mutex is free, and a condition wait parks until the
// condition is signalled (or its deadline passes in virtual time). The
// device checks these from its own thread, without keeping anything.
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*cond_fn)(pthread_cond_t *);
SLOT(pthread_cond_wait);
SLOT(pthread_cond_timedwait);
SLOT(pthread_cond_signal);
SLOT(pthread_cond_broadcast);

static int parks_here(void) { return app_thread != NULL && in_app_code(); }

/// 1 when the mutex is free now (taken and given back at once, by the device's thread).
static int mutex_is_free(void *mutex) {
    if (REAL(mutex_fn, pthread_mutex_trylock)((pthread_mutex_t *)mutex) != 0) return 0;
    REAL(mutex_fn, pthread_mutex_unlock)((pthread_mutex_t *)mutex);
    return 1;
}

/// Whether the mutex's holder is an app thread parked now (glibc notes the holder's thread id).
static int held_by_parked_thread(pthread_mutex_t *mutex) {
    void *owner = (void *)(intptr_t)mutex->__data.__owner;
    if (owner == NULL) return 0;
    lock_queues();
    int parked = set_contains(&parked_threads, owner);
    unlock_queues();
    return parked;
}

int pthread_mutex_lock(pthread_mutex_t *mutex) {
    if (!parks_here()) return REAL(mutex_fn, pthread_mutex_lock)(mutex);
    int result;
    while ((result = REAL(mutex_fn, pthread_mutex_trylock)(mutex)) == EBUSY) {
        // Held by a thread that runs for real (another device's, the runtime's): it lets go soon.
        if (!held_by_parked_thread(mutex)) return REAL(mutex_fn, pthread_mutex_lock)(mutex);
        bgx_work work = {NULL, (void (*)(void *))mutex_is_free, mutex, NULL};
        current.dispatch(current.context, BGX_WAIT_UNTIL, 0, INT64_MAX, work, NULL);
    }
    return result;
}

// Conditions app threads wait on, each with how many times it was signalled.
struct condition_count {
    void *condition;
    uint64_t signals;
};
static struct condition_count *conditions;
static size_t condition_count, condition_capacity;

static uint64_t *signals_of(void *condition, int add) {
    for (size_t i = 0; i < condition_count; i++)
        if (conditions[i].condition == condition) return &conditions[i].signals;
    if (!add) return NULL;
    if (condition_count == condition_capacity) {
        size_t capacity = condition_capacity ? condition_capacity * 2 : 16;
        struct condition_count *grown = realloc(conditions, capacity * sizeof *grown);
        if (grown == NULL) return NULL;
        conditions = grown;
        condition_capacity = capacity;
    }
    conditions[condition_count] = (struct condition_count){condition, 0};
    return &conditions[condition_count++].signals;
}

static void count_signal(pthread_cond_t *condition) {
    if (condition_count == 0) return;
    lock_queues();
    uint64_t *signals = signals_of(condition, 0);
    if (signals != NULL) *signals += 1;
    unlock_queues();
}

static uint64_t signals_now(void *condition) {
    lock_queues();
    uint64_t *signals = signals_of(condition, 1);
    uint64_t value = signals != NULL ? *signals : 0;
    unlock_queues();
    return value;
}

/// What a parked condition wait waits for: a signal after the one it saw.
struct condition_wait {
    void *condition;
    uint64_t seen;
};
static int condition_signalled(void *argument) {
    struct condition_wait *wait = argument;
    return signals_now(wait->condition) != wait->seen;
}

/// Parks until the condition is signalled or `deadline` (monotonic) passes; 0 or ETIMEDOUT, the mutex held again.
static int park_on_condition(pthread_cond_t *condition, pthread_mutex_t *mutex, int64_t deadline) {
    struct condition_wait wait = {condition, signals_now(condition)};
    REAL(mutex_fn, pthread_mutex_unlock)(mutex);
    bgx_work work = {NULL, (void (*)(void *))condition_signalled, &wait, NULL};
    int held = current.dispatch(current.context, BGX_WAIT_UNTIL, 0, deadline, work, NULL);
    pthread_mutex_lock(mutex);
    return held ? 0 : ETIMEDOUT;
}

int pthread_cond_wait(pthread_cond_t *condition, pthread_mutex_t *mutex) {
    if (!parks_here()) return REAL(cond_wait_fn, pthread_cond_wait)(condition, mutex);
    return park_on_condition(condition, mutex, INT64_MAX);
}

/// `deadline` is on the condition's clock: CLOCK_REALTIME unless it was made
/// otherwise (Foundation's NSCondition uses the default), so virtual wall time.
int pthread_cond_timedwait(pthread_cond_t *condition, pthread_mutex_t *mutex, const struct timespec *deadline) {
    if (!parks_here()) return REAL(cond_timedwait_fn, pthread_cond_timedwait)(condition, mutex, deadline);
    int64_t wall = (int64_t)deadline->tv_sec * 1000000000 + deadline->tv_nsec;
    return park_on_condition(condition, mutex, current.monotonic + (wall - current.realtime));
}

int pthread_cond_signal(pthread_cond_t *condition) {
    count_signal(condition);
    return REAL(cond_fn, pthread_cond_signal)(condition);
}

int pthread_cond_broadcast(pthread_cond_t *condition) {
    count_signal(condition);
    return REAL(cond_fn, pthread_cond_broadcast)(condition);
}

int bgx_wait_holds(bgx_work work) { return ((int (*)(void *))work.function)(work.argument); }

/// Whether `start` is the runtime's own (libdispatch's or Swift
/// concurrency's worker threads): those are not app code's threads.
static int started_by_runtime(void *(*start)(void *)) {
    Dl_info info;
    if (dladdr((void *)start, &info) == 0 || info.dli_fname == NULL) return 0;
    return strstr(info.dli_fname, "libdispatch") != NULL || strstr(info.dli_fname, "libswift_Concurrency") != NULL;
}

/// A thread app code starts (`Thread`, raw pthreads) becomes an app thread
/// of the device: it runs when the device hands it the baton, in virtual
/// time. Where the device cannot take it, it runs for real beside the
/// device, and that is said.
int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument) {
    if (in_app_code() && !started_by_runtime(start)) {
        bgx_work work = {NULL, (void (*)(void *))start, argument, NULL};
        if (current.dispatch(current.context, BGX_THREAD_START, 0, 0, work, thread)) return 0;
        current.dispatch(current.context, BGX_ESCAPED_THREAD, 0, 0, (bgx_work){0}, NULL);
    }
    return REAL(pthread_create_fn, pthread_create)(thread, attributes, start, argument);
}

/// Dispatch sources (timers, file descriptors) run on libdispatch's threads on
/// the real clock: not covered, and said so.
void *dispatch_source_create(const void *type, uintptr_t handle, uintptr_t mask, void *queue) {
    if (in_app_code()) current.dispatch(current.context, BGX_ESCAPED_SOURCE, 0, 0, (bgx_work){0}, NULL);
    SLOT(dispatch_source_create);
    return REAL(dispatch_source_create_fn, dispatch_source_create)(type, handle, mask, queue);
}

// Crashes in app code. A trap (fatalError, a failed precondition, a bad
// forced cast: SIGILL or SIGTRAP), an abort (a failed dispatchPrecondition)
// or a fault on an app thread is that app's crash: the handler notes the
// signal, the text Swift wrote to stderr just before and the thread's
// return addresses, hands the baton back to the device and parks the thread
// for good (nothing of it runs again). Only async-signal-safe calls here.
// Any other thread's crash goes to the handler that was there before.
static __thread bgx_crash *crash_record;
static __thread sem_t *crash_baton;
static __thread uintptr_t stack_low, stack_high;
static __thread char last_error[1024];
static __thread size_t last_error_length;
static struct sigaction previous_actions[32];
static const int crash_signals[] = {SIGILL, SIGTRAP, SIGABRT, SIGSEGV, SIGBUS, SIGFPE};

static void note_error_text(const char *text) {
    if (crash_record == NULL || text == NULL) return;
    size_t length = strlen(text);
    if (length >= sizeof last_error) {
        text += length - (sizeof last_error - 1);
        length = sizeof last_error - 1;
    }
    if (last_error_length + length >= sizeof last_error) last_error_length = 0;
    memcpy(last_error + last_error_length, text, length);
    last_error_length += length;
    last_error[last_error_length] = 0;
}

typedef int (*fputs_fn)(const char *, FILE *);
/// Swift's runtime writes a fatal error's message with fputs to stderr just before it traps.
int fputs(const char *text, FILE *stream) {
    if (crash_record != NULL && stream == stderr) note_error_text(text);
    SLOT(fputs);
    return REAL(fputs_fn, fputs)(text, stream);
}

static void on_crash(int signal, siginfo_t *info, void *context) {
    bgx_crash *record = crash_record;
    if (record == NULL) {
        struct sigaction *previous = &previous_actions[signal];
        if (previous->sa_flags & SA_SIGINFO) {
            if (previous->sa_sigaction != NULL) { previous->sa_sigaction(signal, info, context); return; }
        } else if (previous->sa_handler != SIG_DFL && previous->sa_handler != SIG_IGN && previous->sa_handler != NULL) {
            previous->sa_handler(signal);
            return;
        }
        sigaction(signal, previous, NULL);
        raise(signal);
        return;
    }
    crash_record = NULL;  // a fault while noting this one ends the process as it would have
    record->signal = signal;
    memcpy(record->message, last_error, last_error_length + 1);
    // libgcc's unwinder reads each frame's unwind tables, through libc's
    // frames (abort, raise) that keep no frame pointer; loaded beforehand.
    int count = backtrace((void **)record->frames, 48);
    if (count > 4) {
        record->frame_count = count;
        sem_post(crash_baton);
        sigset_t all;
        sigfillset(&all);
        for (;;) sigsuspend(&all);
    }
    count = 0;
    ucontext_t *state = context;
#if defined(__x86_64__)
    uintptr_t pc = (uintptr_t)state->uc_mcontext.gregs[REG_RIP];
    uintptr_t frame = (uintptr_t)state->uc_mcontext.gregs[REG_RBP];
#elif defined(__aarch64__)
    uintptr_t pc = (uintptr_t)state->uc_mcontext.pc;
    uintptr_t frame = (uintptr_t)state->uc_mcontext.regs[29];
#else
    uintptr_t pc = 0, frame = 0;
#endif
    if (pc != 0) record->frames[count++] = pc;
    while (count < 48 && frame >= stack_low && frame + 2 * sizeof(uintptr_t) <= stack_high && frame % sizeof(uintptr_t) == 0) {
        uintptr_t *slots = (uintptr_t *)frame;
        if (slots[1] == 0) break;
        record->frames[count++] = slots[1];
        if (slots[0] <= frame) break;
        frame = slots[0];
    }
    record->frame_count = count;
    sem_post(crash_baton);
    sigset_t none;
    sigfillset(&none);
    for (;;) sigsuspend(&none);
}

static pthread_once_t crash_handlers_once = PTHREAD_ONCE_INIT;
static void install_crash_handlers(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_crash;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
        sigaction(crash_signals[i], &action, &previous_actions[crash_signals[i]]);
}

void bgx_app_thread_catch_crashes(void *baton, bgx_crash *record) {
    pthread_once(&crash_handlers_once, install_crash_handlers);
    void *warm[1];
    backtrace(warm, 1);  // loads the unwinder now, not in the signal handler
    pthread_attr_t attributes;
    if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
        void *base;
        size_t size;
        if (pthread_attr_getstack(&attributes, &base, &size) == 0) {
            stack_low = (uintptr_t)base;
            stack_high = (uintptr_t)base + size;
        }
        pthread_attr_destroy(&attributes);
    }
    // Its own stack for the handler, so that a stack overflow is caught too.
    stack_t alternate;
    alternate.ss_size = 64 * 1024;
    alternate.ss_sp = malloc(alternate.ss_size);
    alternate.ss_flags = 0;
    if (alternate.ss_sp != NULL) sigaltstack(&alternate, NULL);
    crash_baton = baton;
    crash_record = record;
}

/// Whether app code runs on the main queue: the device knows (its main-thread
/// jobs run on whatever thread drives it, which libdispatch and Swift do not
/// know as the main one). Other queues, and code outside app code, ask libdispatch.
typedef void (*dispatch_assert_fn)(void *);
static void fail_assertion(const char *message) {
    note_error_text("BUG IN CLIENT OF LIBDISPATCH: ");
    note_error_text(message);
    fprintf(stderr, "BUG IN CLIENT OF LIBDISPATCH: %s\n", message);
    abort();
}
void dispatch_assert_queue(void *queue) {
    if (in_app_code() && queue == main_queue()) {
        if (current.dispatch(current.context, BGX_ON_MAIN_QUEUE, 1, 0, (bgx_work){0}, NULL)) return;
        fail_assertion("Assertion failed: Block was expected to execute on queue [com.apple.main-thread]");
    }
    SLOT(dispatch_assert_queue);
    REAL(dispatch_assert_fn, dispatch_assert_queue)(queue);
}
void dispatch_assert_queue_not(void *queue) {
    if (in_app_code() && queue == main_queue()) {
        if (!current.dispatch(current.context, BGX_ON_MAIN_QUEUE, 1, 0, (bgx_work){0}, NULL)) return;
        fail_assertion("Assertion failed: Block was not expected to execute on queue [com.apple.main-thread]");
    }
    SLOT(dispatch_assert_queue_not);
    REAL(dispatch_assert_fn, dispatch_assert_queue_not)(queue);
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

// Nothing hands the device work here (dispatch is not interposed), so these
// are never called with any; they exist so that the Swift side links.
void bgx_work_run(bgx_work work) { (void)work; }
void bgx_work_release(bgx_work work) { (void)work; }
void bgx_object_retain(void *object) { (void)object; }
void bgx_object_release(void *object) { (void)object; }
int bgx_real_group_is_empty(void *group) { (void)group; return 1; }
int bgx_real_semaphore_try(void *semaphore) { (void)semaphore; return 1; }
int bgx_real_block_try_wait(void *block) { (void)block; return 1; }
void bgx_virtual_clock_advance_to(int64_t monotonic) { current.monotonic = monotonic; }
int64_t bgx_virtual_clock_monotonic(void) { return current.monotonic; }
void *bgx_app_code_context(void) { return NULL; }
static __thread void *app_thread;
void bgx_set_app_thread(void *thread) { app_thread = thread; }
void *bgx_app_thread(void) { return app_thread; }
int bgx_real_pthread_create(void *thread, void *(*start)(void *), void *argument, size_t stack_size) {
    (void)thread; (void)start; (void)argument; (void)stack_size;
    return -1;
}
void bgx_app_thread_catch_crashes(void *baton, bgx_crash *record) { (void)baton; (void)record; }
int bgx_wait_holds(bgx_work work) { (void)work; return 1; }
void bgx_app_thread_parked(int parked) { (void)parked; }
double bgx_run_loop_timer_next_fire_date(void *timer) { (void)timer; return 0; }
void bgx_run_loop_timer_set_next_fire_date(void *timer, double date) { (void)timer; (void)date; }
double bgx_run_loop_timer_interval(void *timer) { (void)timer; return 0; }
int bgx_run_loop_timer_is_valid(void *timer) { (void)timer; return 0; }
void bgx_run_loop_timer_invalidate(void *timer) { (void)timer; }
void bgx_run_loop_timer_fire(void *timer, void *callout) { (void)timer; (void)callout; }
void bgx_cf_retain(void *object) { (void)object; }
void bgx_cf_release(void *object) { (void)object; }

#endif
