import LatchkeyCrypto

/// Supplies the passphrase for the `passphrase` key source when the store first needs it.
/// The CLI reads it from the prompt, `--passphrase-file` or `LATCHKEY_PASSPHRASE`; returning nil
/// means none is available, which the store reports as `TokenStoreError.passphraseRequired`.
/// Called at most once per store for a given file; never called for the other key sources.
public typealias PassphraseProvider = @Sendable () throws -> SecretBytes?
