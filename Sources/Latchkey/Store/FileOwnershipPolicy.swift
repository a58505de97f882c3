import Glibc

/// Who may own a secret file and which permission bits it may have. Checked with `fstat` on the
/// open descriptor, so the checked file is the one read.
enum FileOwnershipPolicy: Sendable {
    /// Token files, `machine.key`, `file:PATH` keys: owned by the effective user, no group or
    /// other permission bits at all.
    case ownerOnly
    /// systemd credentials: systemd makes them owned by root and grants the service user access
    /// with an ACL, which shows in the group bits; `$CREDENTIALS_DIRECTORY` is private to the unit.
    /// So root or the effective user may own it, and only the "other" bits are refused.
    case systemdCredential
    /// Public files a person names (a client certificate): any owner and mode, since nothing in
    /// them is secret; still only a regular file, so a FIFO or a device cannot stand in.
    case anyOwner

    /// Throws unless `info` (from `fstat` of `path`) is a regular file this policy accepts.
    func check(_ info: stat, path: String) throws(TokenStoreError) {
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .unsafePermissions(path: path, reason: "not a regular file")
        }
        let me = geteuid()
        switch self {
        case .ownerOnly:
            guard info.st_uid == me else { throw .wrongOwner(path: path, owner: info.st_uid, expected: me) }
            guard info.st_mode & 0o077 == 0 else {
                throw .unsafePermissions(
                    path: path, reason: "mode \(Self.octal(info.st_mode)) lets group or others access it (expected 0600; run chmod 600)")
            }
        case .systemdCredential:
            guard info.st_uid == me || info.st_uid == 0 else {
                throw .wrongOwner(path: path, owner: info.st_uid, expected: me)
            }
            guard info.st_mode & 0o007 == 0 else {
                throw .unsafePermissions(path: path, reason: "mode \(Self.octal(info.st_mode)) lets others access it")
            }
        case .anyOwner:
            break
        }
    }

    /// The permission bits as four octal digits, e.g. `0644`.
    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
