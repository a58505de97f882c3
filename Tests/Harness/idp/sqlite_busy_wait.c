/* Preloaded into the test IdP's Glewlwyd (start-idp.sh, start-mtls-instance.sh): Glewlwyd's SQLite
 * backend (libhoel) opens its connections with no busy handler, so a write that meets another
 * connection's write fails at once with SQLITE_BUSY and Glewlwyd answers HTTP 500 ("Error
 * executing sql query"). Parallel test suites on a loaded machine hit it (a PAR push and a CIBA
 * token request in one CI run). This gives every connection SQLite's own busy timeout, as a
 * server in production would configure, and says on stderr each time a wait happened.
 * It also sends SQLite's own error log to stderr (stdout.log beside glewlwyd.log): Glewlwyd logs
 * only "Error executing sql query", and a refresh answered 500 in one CI run (stop 43) with nothing
 * to say which SQLite error it was.
 * Test harness only: nothing of it ships. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <sqlite3.h>

static int wait_when_busy(void *unused, int tries) {
    (void)unused;
    if (tries == 0) fprintf(stderr, "sqlite_busy_wait: database busy, waiting (up to 20 s)\n");
    if (tries >= 2000) return 0;
    sqlite3_sleep(10);
    return 1;
}

static void log_sqlite_error(void *unused, int code, const char *message) {
    (void)unused;
    fprintf(stderr, "sqlite: error %d: %s\n", code, message ? message : "");
}

/* Before Glewlwyd's main, so before SQLite initialises (the only time the log can be set). */
__attribute__((constructor)) static void install_error_log(void) {
    sqlite3_config(SQLITE_CONFIG_LOG, log_sqlite_error, NULL);
}

int sqlite3_open_v2(const char *name, sqlite3 **db, int flags, const char *vfs) {
    static int (*real)(const char *, sqlite3 **, int, const char *);
    if (!real) real = (int (*)(const char *, sqlite3 **, int, const char *))dlsym(RTLD_NEXT, "sqlite3_open_v2");
    int rc = real(name, db, flags, vfs);
    if (rc == SQLITE_OK && db && *db) sqlite3_busy_handler(*db, wait_when_busy, NULL);
    return rc;
}
