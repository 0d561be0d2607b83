#ifndef CBGXCLOCK_H
#define CBGXCLOCK_H

#include <stddef.h>
#include <stdint.h>

/// Work app code hands a dispatch queue: a copied block, or a function and
/// its argument; `group`, when set, was entered for it (and retained) and is
/// left when the work is released.
typedef struct {
    void *block;
    void (*function)(void *);
    void *argument;
    void *group;
} bgx_work;

/// What the device is asked by app code's dispatch calls (`bgx_virtual_clock.dispatch`).
typedef enum {
    /// Run `work` at `deadline` (monotonic ns; INT64_MAX never) on the main queue or another.
    BGX_SUBMIT,
    /// A wall-clock deadline (DispatchWallTime), not covered: the device refuses the work.
    BGX_SUBMIT_REFUSED_WALL,
    /// `object` (a group) was entered or left by app code.
    BGX_GROUP_ENTERED,
    BGX_GROUP_LEFT,
    /// Run `work` once the group `object` is empty / the block `object` has run.
    BGX_NOTIFY_GROUP,
    BGX_NOTIFY_BLOCK,
    /// Wait until `deadline` for the group / semaphore / block `object`: 1 when it holds.
    BGX_WAIT_GROUP,
    BGX_WAIT_SEMAPHORE,
    BGX_WAIT_BLOCK,
    /// App code created a dispatch source, which runs on libdispatch's threads and the real clock.
    BGX_ESCAPED_SOURCE,
    /// App code armed a run-loop timer (`Timer`), which nothing on the device thread runs.
    BGX_ESCAPED_RUN_LOOP_TIMER,
    /// App code started a thread, which runs for real beside the device.
    BGX_ESCAPED_THREAD,
    /// App code made the run-loop timer `object` (a `Timer`); `work.function` is its callout.
    BGX_RUN_LOOP_TIMER_CREATED,
    /// App code added the run-loop timer `object` to a run loop: `on_main` is
    /// 1 for the main run loop, 2 for the calling thread's, 0 for another's.
    /// 1 when the device took it (it fires it in virtual time).
    BGX_RUN_LOOP_TIMER_ADDED,
    /// App code asks whether it runs on the main queue (`dispatch_assert_queue`,
    /// which `dispatchPrecondition` and `MainActor.assumeIsolated` call): 1 when
    /// the job running now is a main-thread job of the app.
    BGX_ON_MAIN_QUEUE,
    /// App code sleeps until `deadline` (monotonic ns): 1 when the device
    /// parked the thread and woke it at the deadline (its clocks read it), 0
    /// when this thread cannot be parked (the clocks simply move on).
    BGX_SLEEP,
    /// App code starts a thread (`Thread`, `pthread_create`) running
    /// `work.function(work.argument)`; `object` is where its pthread_t goes.
    /// 1 when the device made it an app thread of its own.
    BGX_THREAD_START,
    /// App code blocks on a lock or a condition (`NSLock`, `NSCondition`,
    /// pthread mutexes and conditions) until `((int (*)(void *))work.function)(work.argument)`
    /// holds or `deadline` passes: 1 when it held.
    BGX_WAIT_UNTIL,
} bgx_dispatch_request;

/// `BGX_SUBMIT`'s `on_main` bits: 1 for the main queue; 2 when the queue
/// (`object`) runs its blocks concurrently (a global queue, one made
/// `.concurrent`), so one of them blocking does not hold back the next.
#define BGX_ON_MAIN 1
#define BGX_CONCURRENT 2

/// The clocks one thread reads while a simulated device runs app code on it.
/// Nanoseconds: `realtime` since 1970 (CLOCK_REALTIME, gettimeofday, time),
/// `monotonic` for CLOCK_MONOTONIC and its siblings (DispatchTime, uptime).
typedef struct {
    int enabled;
    int64_t realtime;
    int64_t monotonic;
    /// Where app code's dispatch calls go instead of libdispatch (NULL: libdispatch).
    /// Returns 1 when the device took the work (or the wait held), 0 otherwise.
    int (*dispatch)(void *context, bgx_dispatch_request request, int on_main, int64_t deadline,
                    bgx_work work, void *object);
    void *context;
    /// The seeded generator's state app code's randomness comes from (NULL: the kernel's).
    uint64_t *random;
} bgx_virtual_clock;

/// Runs work the device received (a block may run any number of times).
void bgx_work_run(bgx_work work);
/// A `BGX_WAIT_UNTIL` request's predicate, asked now: 1 when it holds.
int bgx_wait_holds(bgx_work work);
/// Releases work the device received, leaving its group.
void bgx_work_release(bgx_work work);
/// Keeps a dispatch object alive forever (a group a terminated process left entered).
void bgx_object_retain(void *object);
/// Lets go of a dispatch object the device was handed retained (a group it notifies for).
void bgx_object_release(void *object);
/// libdispatch's answer without waiting: the group is empty / the semaphore
/// was taken (it is decremented) / the block has run (a block may be waited for once).
int bgx_real_group_is_empty(void *group);
int bgx_real_semaphore_try(void *semaphore);
int bgx_real_block_try_wait(void *block);
/// Moves this thread's clocks on to `monotonic` (time spent waiting) / reads them.
void bgx_virtual_clock_advance_to(int64_t monotonic);
int64_t bgx_virtual_clock_monotonic(void);
/// The `context` of this thread's setting while it runs app code with a
/// device to hand work to; NULL elsewhere.
void *bgx_app_code_context(void);

/// The app thread this thread is (a device's object), or NULL on any other thread.
void bgx_set_app_thread(void *thread);
void *bgx_app_thread(void);
/// The calling app thread parks (1) or runs again (0): a mutex it holds meanwhile makes others park, not block.
void bgx_app_thread_parked(int parked);
/// pthread_create as the C library has it, whoever calls.
int bgx_real_pthread_create(void *thread, void *(*start)(void *), void *argument, size_t stack_size);

/// What an app thread that crashed left: the signal, the last text it wrote
/// to stderr before (Swift's "Fatal error: …" line), and its stack's return
/// addresses, innermost first.
typedef struct {
    int signal;
    char message[1024];
    uintptr_t frames[48];
    int frame_count;
} bgx_crash;
/// From now on a trap, abort or fault on this thread (app code's crash) does
/// not end the process: `record` is filled in, the semaphore `baton` (a
/// sem_t) is posted, and the thread stays parked for good. Other threads
/// crash as before.
void bgx_app_thread_catch_crashes(void *baton, bgx_crash *record);

/// A run-loop timer the device fires itself (`Timer`): CoreFoundation's
/// answers about it (fire dates in seconds since 2001, as CFAbsoluteTime).
double bgx_run_loop_timer_next_fire_date(void *timer);
void bgx_run_loop_timer_set_next_fire_date(void *timer, double date);
double bgx_run_loop_timer_interval(void *timer);
int bgx_run_loop_timer_is_valid(void *timer);
void bgx_run_loop_timer_invalidate(void *timer);
/// Calls the timer's callout with its context's info, as a run loop does.
void bgx_run_loop_timer_fire(void *timer, void *callout);
void bgx_cf_retain(void *object);
void bgx_cf_release(void *object);

/// Makes this thread read `clock` (when enabled) and returns what it read before,
/// so that callers can nest and restore.
bgx_virtual_clock bgx_virtual_clock_swap(bgx_virtual_clock clock);

/// The real clocks, whatever this thread's setting (nanoseconds).
int64_t bgx_real_realtime_ns(void);

#endif
