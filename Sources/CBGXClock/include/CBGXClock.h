#ifndef CBGXCLOCK_H
#define CBGXCLOCK_H

#include <stdint.h>

/// The clocks one thread reads while a simulated device runs app code on it.
/// Nanoseconds: `realtime` since 1970 (CLOCK_REALTIME, gettimeofday, time),
/// `monotonic` for CLOCK_MONOTONIC and its siblings (DispatchTime, uptime).
typedef struct {
    int enabled;
    int64_t realtime;
    int64_t monotonic;
    /// Where blocks app code puts on the main queue go instead of libdispatch:
    /// `schedule(context, deadline, block)` gets the deadline on the monotonic
    /// clock (nanoseconds) and a copied block (see `bgx_block_run`), and
    /// returns 0 to leave the block to libdispatch after all. NULL: libdispatch.
    /// A deadline of INT64_MIN with no block: a wall-clock deadline, which the
    /// device does not run (it returns 1 to drop the block).
    int (*schedule)(void *context, int64_t deadline, void *block);
    void *context;
} bgx_virtual_clock;

/// Runs a block `schedule` received (it may run any number of times).
void bgx_block_run(void *block);
/// Releases a block `schedule` received.
void bgx_block_release(void *block);

/// Makes this thread read `clock` (when enabled) and returns what it read before,
/// so that callers can nest and restore.
bgx_virtual_clock bgx_virtual_clock_swap(bgx_virtual_clock clock);

/// The real clocks, whatever this thread's setting (nanoseconds).
int64_t bgx_real_realtime_ns(void);

#endif
