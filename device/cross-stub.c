// A stand-in for a foreign-CPU `latchkey` on an x86_64 test machine without binfmt_misc
// (device/cross-test.sh). The acceptance suites run "the binary" directly, and the device suite
// copies it alone into a bare root (no shell, no /proc, no qemu) and runs it there through chroot.
// So this stub is itself one fully static x86_64 file that carries both qemu-aarch64-static and
// the aarch64 binary: device/cross-test.sh appends them and a trailer to it
//   [stub][qemu][guest][u64 qemu size][u64 guest size][u64 id]["LKXSTUB1"]
// At run time the stub unpacks both, once per id, into $TMPDIR (or /tmp) next to where it runs,
// and execs qemu on the guest with the same arguments, argv[0] and environment: signals, exit
// status and file descriptors are then the guest's own (qemu forwards them).
// It finds itself through /proc/self/exe, or through argv[0] in a root without /proc.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void fail(const char *what) {
    fprintf(stderr, "latchkey cross stub: %s: %s\n", what, strerror(errno));
    exit(127);
}

static int copyRange(int from, off_t offset, uint64_t size, const char *path) {
    struct stat st;
    if (stat(path, &st) == 0 && (uint64_t)st.st_size == size) return 0;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
    int to = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    if (to < 0) return -1;
    char buffer[1 << 16];
    while (size > 0) {
        ssize_t n = pread(from, buffer, size < sizeof buffer ? size : sizeof buffer, offset);
        if (n <= 0) { close(to); unlink(tmp); return -1; }
        if (write(to, buffer, (size_t)n) != n) { close(to); unlink(tmp); return -1; }
        offset += n;
        size -= (uint64_t)n;
    }
    if (close(to) != 0 || rename(tmp, path) != 0) { unlink(tmp); return -1; }
    return 0;
}

int main(int argc, char **argv) {
    (void)argc;
    int self = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (self < 0) self = open(argv[0], O_RDONLY | O_CLOEXEC);
    if (self < 0) fail("cannot open itself");
    struct stat st;
    if (fstat(self, &st) != 0) fail("fstat");
    uint64_t trailer[4];
    if (st.st_size < (off_t)sizeof trailer ||
        pread(self, trailer, sizeof trailer, st.st_size - (off_t)sizeof trailer) != (ssize_t)sizeof trailer ||
        memcmp(&trailer[3], "LKXSTUB1", 8) != 0) {
        errno = EINVAL;
        fail("no payload (made by device/cross-test.sh)");
    }
    uint64_t qemuSize = trailer[0], guestSize = trailer[1], id = trailer[2];
    off_t qemuAt = st.st_size - (off_t)sizeof trailer - (off_t)guestSize - (off_t)qemuSize;
    off_t guestAt = qemuAt + (off_t)qemuSize;
    const char *dir = getenv("TMPDIR");
    if (!dir || access(dir, W_OK) != 0) dir = "/tmp";
    char qemu[4096], guest[4096];
    snprintf(qemu, sizeof qemu, "%s/.latchkey-cross-%016llx-qemu", dir, (unsigned long long)id);
    snprintf(guest, sizeof guest, "%s/.latchkey-cross-%016llx-guest", dir, (unsigned long long)id);
    if (copyRange(self, qemuAt, qemuSize, qemu) != 0) fail(qemu);
    if (copyRange(self, guestAt, guestSize, guest) != 0) fail(guest);
    close(self);
    // qemu -0 ARGV0 GUEST ARGS...: the guest sees the argv[0] it was called with.
    char **args = calloc((size_t)argc + 4, sizeof *args);
    if (!args) fail("calloc");
    args[0] = qemu;
    args[1] = "-0";
    args[2] = argv[0];
    args[3] = guest;
    for (int i = 1; i < argc; i++) args[3 + i] = argv[i];
    execv(qemu, args);
    fail("exec qemu-aarch64-static");
}
