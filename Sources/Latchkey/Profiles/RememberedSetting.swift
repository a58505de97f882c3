import LatchkeyHTTP

/// The settings a profile remembers that do not change the sign-in (cli.md `config`): one table of
/// name, read, write and check, used by `config get|set|unset` and by `login`'s options alike, so
/// that `config set ca-file F` and `login --ca-file F` refuse the same files (they were four maps
/// of the same five settings, with two different checks of the CA bundle).
package struct RememberedSetting: Sendable {
    /// Why a value cannot be remembered; the CLI words it.
    package enum Refusal: Error, Sendable, Equatable {
        /// Empty, or with a space or a control character: these end up in git's input or a URL.
        case unusableText
        /// Not an absolute URI (RFC 3986 §4.3) without a fragment.
        case notAbsoluteURI(String)
        /// Not a whole number of seconds ≥ 0.
        case notWholeSeconds(String)
        /// More seconds than a profile may carry (`RefreshMargin.profileCeiling`).
        case tooManySeconds(Int64, ceiling: Int64)
        /// The CA bundle fails the rule every use of it applies (`HTTPClient.checkCABundle`):
        /// unreadable, or writable by others.
        case unusableBundle(path: String, HTTPError)
        /// The file holds no PEM certificate.
        case noCertificate(path: String)
    }

    /// The option's name, as `login` and `config` spell it (`ca-file`).
    package let name: String
    /// The remembered value, nil when unset.
    package let get: @Sendable (ProfileSettings) -> String?
    /// Sets the value, or with nil forgets it; only checked values (`check`) are given.
    package let set: @Sendable (inout ProfileSettings, String?) -> Void
    /// The value to remember for `text`, or why it cannot be.
    package let check: @Sendable (String) throws(Refusal) -> String

    /// Every remembered setting, in the order `config` lists them.
    package static let all: [RememberedSetting] = [caFile, credentialHost, credentialUsername, postLogoutRedirectURI, minTTL]

    /// The setting named `name`, if `config` may change it.
    package static func named(_ name: String) -> RememberedSetting? { all.first { $0.name == name } }

    /// The PEM CA bundle, by absolute path: readable, not writable by others, and holding a certificate.
    package static let caFile = RememberedSetting(
        name: "ca-file", get: { $0.caFile }, set: { $0.caFile = $1 },
        check: { text throws(Refusal) in
            let path = ForeignWriter.absolute(text)
            // The rule every use applies (readable; a bundle others can write is refused), before
            // it is remembered, with the words of every use; the bytes it read are the ones looked in.
            let bytes: [UInt8]
            do throws(HTTPError) { bytes = try HTTPClient.readCABundle(path) } catch { throw .unusableBundle(path: path, error) }
            guard bytes.count <= 8 << 20, holdsCertificate(bytes) else { throw .noCertificate(path: path) }
            return path
        })

    /// The host a git credential helper answers for.
    package static let credentialHost = RememberedSetting(
        name: "credential-host", get: { $0.credentialHost }, set: { $0.credentialHost = $1 }, check: plainText)

    /// The user name a git credential helper answers with.
    package static let credentialUsername = RememberedSetting(
        name: "credential-username", get: { $0.credentialUsername }, set: { $0.credentialUsername = $1 }, check: plainText)

    /// Where the provider sends the browser after logout: an absolute URI.
    package static let postLogoutRedirectURI = RememberedSetting(
        name: "post-logout-redirect-uri", get: { $0.postLogoutRedirectURI }, set: { $0.postLogoutRedirectURI = $1 },
        check: { text throws(Refusal) in
            let value = try plainText(text)
            guard ClientConfiguration.isAbsoluteURIWithoutFragment(value) else { throw .notAbsoluteURI(value) }
            return value
        })

    /// The refresh margin `token`, `fetch`, `proof` and `credential get` use by default, in seconds.
    package static let minTTL = RememberedSetting(
        name: "min-ttl", get: { $0.minTTL.map(String.init) }, set: { $0.minTTL = $1.flatMap { Int64($0) } },
        check: { text throws(Refusal) in
            guard let seconds = Int64(text), seconds >= 0 else { throw .notWholeSeconds(text) }
            // Remembered by every later call (and copied across a fleet): a margin past a day
            // would make every token due, so every call a refresh.
            let ceiling = Int64(RefreshMargin.profileCeiling)
            guard seconds <= ceiling else { throw .tooManySeconds(seconds, ceiling: ceiling) }
            return String(seconds)
        })

    /// Text that goes into git's input or a URL: non-empty, no space, no control character.
    @Sendable static func plainText(_ text: String) throws(Refusal) -> String {
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0 == " " || CharacterClass.isASCIIControl($0) }) else {
            throw .unusableText
        }
        return text
    }

    /// True when `bytes` contain a PEM certificate's first line (a bundle may begin with comments).
    static func holdsCertificate(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN CERTIFICATE-----".utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
    }
}
