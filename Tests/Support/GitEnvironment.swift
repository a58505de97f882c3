/// The environment for a real `git` in a test: only the configuration the test passes with `-c`
/// (no system or global file, no GIT_* from outside, which would override it: GIT_SSL_CAINFO beats
/// http.sslCAInfo), and no prompt, so a missing credential fails instead of waiting on a terminal.
public enum GitEnvironment {
    public static func isolated(_ base: [String: String], home: String) -> [String: String] {
        var env = base.filter { !$0.key.hasPrefix("GIT_") }
        env["HOME"] = home
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        env["GIT_CONFIG_GLOBAL"] = "/dev/null"
        env["GIT_TERMINAL_PROMPT"] = "0"
        env["GIT_ASKPASS"] = "/bin/false"
        env["SSH_ASKPASS"] = "/bin/false"
        return env
    }
}
