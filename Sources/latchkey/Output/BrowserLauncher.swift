import Glibc
import LatchkeyHTTP

/// `--open`: starts `xdg-open URL` without waiting for it and without a shell. Failure only earns
/// a warning: the URL is printed anyway.
enum BrowserLauncher {
    static func open(_ url: String, console: Console) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Children must not inherit the blocked SIGINT/SIGTERM of this process.
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup("xdg-open"), strdup(url), nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, "xdg-open", &actions, &attributes, argv, environ)
        if result != 0 {
            console.warn("could not start xdg-open (\(ErrnoText.describe(result))); open the address yourself")
        }
    }
}
