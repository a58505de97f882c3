#ifndef LATCHKEY_WORKER_POOL_H
#define LATCHKEY_WORKER_POOL_H
// The threads behind latchkey's default task executor (Sources/latchkey/Startup/WorkerPoolExecutor.swift).
#include <stdbool.h>
#include <stdint.h>

/// Runs a Swift concurrency job (an `UnownedJob`'s pointer) on a pool thread, after
/// `delayNanoseconds` (0: as soon as a worker is free). The first call starts the first worker.
void latchkey_pool_submit(void *job, uint64_t delayNanoseconds);

/// Counters for tests.
typedef struct {
    uint64_t jobsRun;         ///< jobs handed to swift_job_run
    uint64_t delayedJobs;     ///< submissions with a delay
    uint32_t threadsStarted;  ///< workers started so far (they never exit)
} LatchkeyPoolStatistics;

/// A consistent snapshot of the counters.
LatchkeyPoolStatistics latchkey_pool_statistics(void);

/// Whether the calling thread is one of the pool's workers.
bool latchkey_pool_is_worker_thread(void);

/// The most workers the pool starts.
uint32_t latchkey_pool_maximum_workers(void);

#if defined(LATCHKEY_SWIFT_RUNTIME_6_0)
/// Built against Swift 6.0's runtime (the aarch64 build): makes the pool the global executor through
/// that runtime's enqueue hooks (LatchkeyWorkerPool.c). Call before the first task.
void latchkey_pool_install_runtime60_hooks(void);
#endif

#endif
