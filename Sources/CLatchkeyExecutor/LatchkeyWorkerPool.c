// A minimal thread pool for Swift concurrency jobs, so latchkey never hands work to libdispatch's
// worker pools (WorkerPoolExecutor.swift says why). One mutex, one condition variable on
// CLOCK_MONOTONIC, a FIFO of ready jobs and a list of delayed jobs sorted by deadline (latchkey has a
// handful at most, so a list beats a heap). Workers start lazily — the first with the first job,
// another only when a job is queued while no worker is idle — up to a cap, and never exit: latchkey
// is a short-lived process. Workers start with SIGINT, SIGTERM and every other asynchronous signal
// blocked, as libdispatch's do, so those stay for TerminationSignals' sigwait thread. Workers are named "latchkey-pool" (tests look for them).
#include "LatchkeyWorkerPool.h"

#if defined(__linux__)
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

// swift_job_run (swift/include/swift/Runtime/Concurrency.h, exported since Swift 5.5) runs a job on
// an executor; libdispatch's worker calls it with the generic executor, a two-word reference of
// zeros, and so does this pool. Swift calling convention: clang's swiftcall lowers the struct the
// same way the runtime's own C++ does.
typedef struct {
    const void *identity;
    uintptr_t implementation;
} LatchkeySerialExecutorRef;

extern __attribute__((swiftcall)) void swift_job_run(void *job, LatchkeySerialExecutorRef executor);

/// Enough for latchkey's few concurrent tasks plus a blocked one or two (blocking I/O runs on
/// DedicatedThread, not here).
enum { maximumWorkers = 8 };

typedef struct Node {
    void *job;
    uint64_t deadline; // CLOCK_MONOTONIC nanoseconds
    struct Node *next;
} Node;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t wakeOnce = PTHREAD_ONCE_INIT;
static pthread_cond_t wake;          // CLOCK_MONOTONIC, set up by initialiseWake
static Node *readyHead, *readyTail;  // FIFO
static Node *delayed;                // sorted by deadline, earliest first
static uint32_t workers, idleWorkers;
static LatchkeyPoolStatistics statistics;
static __thread bool isWorker;

static void initialiseWake(void) {
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &attributes);
    pthread_condattr_destroy(&attributes);
}

static uint64_t monotonicNow(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static void appendReadyLocked(Node *node) {
    node->next = NULL;
    if (readyTail) readyTail->next = node; else readyHead = node;
    readyTail = node;
}

static void *workerMain(void *unused);

/// Wakes an idle worker, or starts one when none is idle and the cap allows. Called with `lock`.
static void wakeWorkerLocked(void) {
    if (idleWorkers > 0) {
        pthread_cond_signal(&wake);
        return;
    }
    if (workers >= maximumWorkers) return; // a busy worker takes the job when it is done
    // The new thread inherits this mask: libdispatch's worker mask (its _dispatch_sigmask), every
    // signal blocked but those a thread raises itself (faults, SIGPIPE on a write, SIGPROF).
    sigset_t mask, previous;
    sigfillset(&mask);
    const int synchronous[] = {SIGILL, SIGTRAP, SIGFPE, SIGBUS, SIGSEGV, SIGSYS, SIGPIPE, SIGPROF};
    for (size_t i = 0; i < sizeof synchronous / sizeof synchronous[0]; i++) sigdelset(&mask, synchronous[i]);
    pthread_sigmask(SIG_SETMASK, &mask, &previous);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    if (pthread_create(&thread, &attributes, workerMain, NULL) == 0) {
        workers += 1;
        statistics.threadsStarted += 1;
    }
    pthread_attr_destroy(&attributes);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
}

void latchkey_pool_submit(void *job, uint64_t delayNanoseconds) {
    pthread_once(&wakeOnce, initialiseWake);
    Node *node = malloc(sizeof *node);
    if (node == NULL) abort(); // as the Swift runtime does when it cannot allocate
    node->job = job;
    node->next = NULL;
    pthread_mutex_lock(&lock);
    if (delayNanoseconds == 0) {
        node->deadline = 0;
        appendReadyLocked(node);
    } else {
        statistics.delayedJobs += 1;
        uint64_t now = monotonicNow();
        node->deadline = delayNanoseconds > UINT64_MAX - now ? UINT64_MAX : now + delayNanoseconds;
        Node **link = &delayed;
        while (*link && (*link)->deadline <= node->deadline) link = &(*link)->next;
        node->next = *link;
        *link = node;
    }
    wakeWorkerLocked();
    // Not even one thread could be started (resource exhaustion): run ready jobs here rather than
    // never; delayed ones wait for a later submission to try again.
    Node *here = NULL;
    if (workers == 0 && readyHead) {
        here = readyHead;
        readyHead = here->next;
        if (!readyHead) readyTail = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (here) {
        void *ready = here->job;
        free(here);
        swift_job_run(ready, (LatchkeySerialExecutorRef){0, 0});
    }
}

static void *workerMain(void *unused) {
    (void)unused;
    isWorker = true;
    prctl(PR_SET_NAME, "latchkey-pool", 0, 0, 0); // this thread only: no /proc needed
    pthread_mutex_lock(&lock);
    for (;;) {
        if (delayed) {
            uint64_t now = monotonicNow();
            while (delayed && delayed->deadline <= now) {
                Node *due = delayed;
                delayed = due->next;
                appendReadyLocked(due);
            }
        }
        if (readyHead) {
            Node *node = readyHead;
            readyHead = node->next;
            if (!readyHead) readyTail = NULL;
            if (readyHead) wakeWorkerLocked(); // more waiting: don't let them queue behind this one
            statistics.jobsRun += 1;
            pthread_mutex_unlock(&lock);
            void *job = node->job;
            free(node);
            swift_job_run(job, (LatchkeySerialExecutorRef){0, 0});
            pthread_mutex_lock(&lock);
            continue;
        }
        idleWorkers += 1;
        if (delayed) {
            struct timespec until = {
                .tv_sec = (time_t)(delayed->deadline / 1000000000u),
                .tv_nsec = (long)(delayed->deadline % 1000000000u),
            };
            pthread_cond_timedwait(&wake, &lock, &until);
        } else {
            pthread_cond_wait(&wake, &lock);
        }
        idleWorkers -= 1;
    }
    return NULL;
}

LatchkeyPoolStatistics latchkey_pool_statistics(void) {
    pthread_mutex_lock(&lock);
    LatchkeyPoolStatistics snapshot = statistics;
    pthread_mutex_unlock(&lock);
    return snapshot;
}

bool latchkey_pool_is_worker_thread(void) {
    return isWorker;
}

uint32_t latchkey_pool_maximum_workers(void) {
    return maximumWorkers;
}

#if defined(LATCHKEY_SWIFT_RUNTIME_6_0)
// Swift 6.0's global-executor hooks (swift/include/swift/Runtime/ConcurrencyHooks.def in 6.0):
// swift_task_enqueueGlobal*, the runtime's way to the global executor, calls the hook when one is
// set. Each hook and each `original` are Swift calling convention; a job is a Job pointer.
typedef __attribute__((swiftcall)) void (*GlobalOriginal)(void *job);
typedef __attribute__((swiftcall)) void (*DelayOriginal)(unsigned long long delay, void *job);
typedef __attribute__((swiftcall)) void (*DeadlineOriginal)(long long sec, long long nsec, long long tsec,
                                                            long long tnsec, int clock, void *job);
extern __attribute__((swiftcall)) void (*swift_task_enqueueGlobal_hook)(void *job, GlobalOriginal original);
extern __attribute__((swiftcall)) void (*swift_task_enqueueGlobalWithDelay_hook)(unsigned long long delay, void *job,
                                                                                 DelayOriginal original);
extern __attribute__((swiftcall)) void (*swift_task_enqueueGlobalWithDeadline_hook)(
    long long sec, long long nsec, long long tsec, long long tnsec, int clock, void *job, DeadlineOriginal original);
// The runtime's own clock reading for its clock ids (1 continuous, 2 suspending), so a deadline is
// measured on the clock it was given in.
extern __attribute__((swiftcall)) void swift_get_time(long long *seconds, long long *nanoseconds, int clock);

__attribute__((swiftcall)) static void enqueueGlobal(void *job, GlobalOriginal original) {
    (void)original;
    latchkey_pool_submit(job, 0);
}

__attribute__((swiftcall)) static void enqueueGlobalWithDelay(unsigned long long delay, void *job, DelayOriginal original) {
    (void)original;
    latchkey_pool_submit(job, delay);
}

__attribute__((swiftcall)) static void enqueueGlobalWithDeadline(long long sec, long long nsec, long long tsec,
                                                                 long long tnsec, int clock, void *job,
                                                                 DeadlineOriginal original) {
    (void)tsec; (void)tnsec; (void)original;
    long long nowSec = 0, nowNsec = 0;
    swift_get_time(&nowSec, &nowNsec, clock);
    // Nanoseconds until the deadline: 0 for the past, saturating far in the future.
    uint64_t delay = 0;
    if (sec > nowSec || (sec == nowSec && nsec > nowNsec)) {
        long long seconds = sec - nowSec;
        long long nanoseconds = nsec - nowNsec;
        if (nanoseconds < 0) { seconds -= 1; nanoseconds += 1000000000; }
        delay = (uint64_t)seconds >= UINT64_MAX / 1000000000u - 1 ? UINT64_MAX
                                                                 : (uint64_t)seconds * 1000000000u + (uint64_t)nanoseconds;
    }
    latchkey_pool_submit(job, delay);
}

void latchkey_pool_install_runtime60_hooks(void) {
    swift_task_enqueueGlobal_hook = enqueueGlobal;
    swift_task_enqueueGlobalWithDelay_hook = enqueueGlobalWithDelay;
    swift_task_enqueueGlobalWithDeadline_hook = enqueueGlobalWithDeadline;
}
#endif

#else
// Elsewhere the platform's default executor stays (WorkerPoolExecutor.swift is Linux-only).
void latchkey_pool_submit(void *job, uint64_t delayNanoseconds) { (void)job; (void)delayNanoseconds; }
LatchkeyPoolStatistics latchkey_pool_statistics(void) { LatchkeyPoolStatistics none = {0, 0, 0}; return none; }
bool latchkey_pool_is_worker_thread(void) { return false; }
uint32_t latchkey_pool_maximum_workers(void) { return 0; }
#endif
