/// The profile file a sign-in writes beside its tokens, in the same locked section as the token
/// file, so the two are saved as one unit (`Session.signIn(…savingProfile:…)`; the order is in
/// docs/architecture.md, "A sign-in saves two files").
package struct ProfileSave: Sendable {
    /// Writes the profile for the session just signed in, atomically; called under the lock.
    /// `warnsOfflineAccess` is true when the sign-in then reports `.offlineAccessWithoutDPoP`,
    /// so the profile can remember that the warning was given.
    let write: @Sendable (_ session: StoredSession, _ warnsOfflineAccess: Bool) throws -> Void

    /// A save that runs `write`.
    package init(_ write: @escaping @Sendable (_ session: StoredSession, _ warnsOfflineAccess: Bool) throws -> Void) {
        self.write = write
    }

    /// Saves `settings(warnsOfflineAccess)`, evaluated under the lock, as `profile` in `store`.
    package static func settings(_ settings: @escaping @Sendable (_ warnsOfflineAccess: Bool) -> ProfileSettings,
                                 to store: ProfileStore, profile: String) -> ProfileSave {
        ProfileSave { _, warns in try store.save(settings(warns), profile: profile) }
    }
}
