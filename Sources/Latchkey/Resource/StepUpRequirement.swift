import LatchkeyHTTP

/// What a resource server asks of the sign-in behind a token it refused with
/// `error="insufficient_user_authentication"` (RFC 9470 §3): authentication context classes, a
/// maximum authentication age, or both. Carried as data from the 401 to the caller, who decides
/// whether to sign in again (`AuthenticationRequirement`).
package struct StepUpRequirement: Sendable, Equatable {
    /// `acr_values`, space-separated in the challenge, in order; nil when not asked.
    package var acrValues: [String]?
    /// `max_age` in seconds; nil when not asked.
    package var maxAge: Int?

    /// A requirement naming `acrValues` and/or `maxAge`.
    package init(acrValues: [String]? = nil, maxAge: Int? = nil) {
        self.acrValues = acrValues
        self.maxAge = maxAge
    }

    /// What a sign-in must ask for to answer it.
    package var authentication: AuthenticationRequirement {
        AuthenticationRequirement(acrValues: acrValues ?? [], maxAge: maxAge)
    }
}

/// What a 401 or 403 from a resource server says, as data: the error code, where its metadata
/// is (RFC 9728 §5.1 `resource_metadata`), and a step-up requirement (RFC 9470 §3). Read from the
/// `Bearer` or `DPoP` challenges of `WWW-Authenticate`; untrusted text, kept as sent.
package struct ResourceChallenge: Sendable, Equatable {
    /// The challenge's `error`, if any.
    package var error: String?
    /// `resource_metadata`: the URL of the resource's metadata, as sent (not yet checked).
    package var resourceMetadata: String?
    /// Present when `error` is `insufficient_user_authentication`.
    package var stepUp: StepUpRequirement?

    /// The most a `max_age` may say (a year): anything larger is not a bound worth sending on.
    package static let maxMaxAge = 31_536_000

    /// Reads the first `Bearer` or `DPoP` challenge that carries `error` or `resource_metadata`;
    /// nil when there is none (or the header cannot be parsed).
    package init?(wwwAuthenticate header: String?) {
        guard let header, let challenges = AuthenticationChallenge.parse(header) else { return nil }
        guard
            let challenge = challenges.first(where: {
                ($0.isScheme("Bearer") || $0.isScheme("DPoP")) && ($0.parameter("error") != nil || $0.parameter("resource_metadata") != nil)
            })
        else { return nil }
        error = challenge.parameter("error")
        resourceMetadata = challenge.parameter("resource_metadata").flatMap { $0.isEmpty ? nil : $0 }
        if error == "insufficient_user_authentication" {
            stepUp = StepUpRequirement(
                acrValues: challenge.parameter("acr_values").flatMap(Self.acrValues),
                maxAge: challenge.parameter("max_age").flatMap(Self.maxAge))
        }
    }

    /// `acr_values`: space-separated values, each printable ASCII (nil when none is left).
    static func acrValues(_ text: String) -> [String]? {
        let values = text.split(separator: " ").map(String.init)
        guard !values.isEmpty, values.count <= 16,
            values.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 && CharacterClass.isVisibleASCII($0) })
        else { return nil }
        return values
    }

    /// `max_age`: a non-negative decimal integer no larger than `maxMaxAge`.
    static func maxAge(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 10, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Int(text),
            n <= maxMaxAge
        else { return nil }
        return n
    }
}
