import LatchkeyHTTP

/// Whether a device flow's verification address belongs to the provider being signed in to
/// (RFC 8628 §5.4, draft-ietf-oauth-cross-device-security): a user code typed into someone else's
/// page signs the attacker's device in, so the person is warned when the two sites differ.
///
/// A "site" is an approximation of the registrable domain (eTLD+1), since the Public Suffix List is
/// too large to ship and changes weekly:
/// - IP literals and single-label hosts (`localhost`) are compared exactly;
/// - otherwise the last two labels, or three when the last two are one of `twoLevelSuffixes`
///   (country second levels such as `co.uk`, and hosting suffixes such as `github.io` where every
///   name belongs to someone else);
/// - case is ignored, and a trailing dot.
/// Pairs of sites one provider is known to use together are listed in `knownProviderSites`.
public enum VerificationSite {
    /// Two-label public suffixes under which the registrable domain has three labels.
    public static let twoLevelSuffixes: Set<String> = [
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "net.uk", "ltd.uk", "plc.uk",
        "com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz", "org.nz", "govt.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "co.kr", "or.kr", "co.in", "net.in", "org.in",
        "co.za", "org.za", "co.il", "org.il", "com.br", "net.br", "org.br", "gov.br",
        "com.cn", "net.cn", "org.cn", "gov.cn", "com.hk", "com.tw", "com.sg", "com.my", "com.mx",
        "com.ar", "com.tr", "com.ua", "co.id", "co.th", "com.pl", "com.es",
        "github.io", "gitlab.io", "herokuapp.com", "azurewebsites.net", "cloudfront.net", "appspot.com",
        "web.app", "firebaseapp.com", "pages.dev", "workers.dev", "vercel.app", "netlify.app", "onrender.com",
        "blogspot.com", "ngrok.io", "ngrok-free.app"
    ]

    /// Sites that one provider uses together: Microsoft Entra's issuer is on
    /// `login.microsoftonline.com` and its `verification_uri` is `https://microsoft.com/devicelogin`.
    public static let knownProviderSites: [Set<String>] = [["microsoftonline.com", "microsoft.com"]]

    /// The approximate registrable domain of `host` (lowercased, trailing dot dropped).
    public static func site(of host: String) -> String {
        var name = ASCIICase.lowercased(host)
        if name.hasSuffix(".") { name.removeLast() }
        if name.contains(":") || isIPv4(name) { return name }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard labels.count > 2 else { return name }
        let lastTwo = labels.suffix(2).joined(separator: ".")
        return twoLevelSuffixes.contains(lastTwo) ? labels.suffix(3).joined(separator: ".") : lastTwo
    }

    /// True when `a` and `b` are on the same site, or on two sites of one known provider.
    public static func sameSite(_ a: String, _ b: String) -> Bool {
        let (siteA, siteB) = (site(of: a), site(of: b))
        if siteA == siteB { return true }
        return knownProviderSites.contains { $0.contains(siteA) && $0.contains(siteB) }
    }

    /// True when `verificationURI` is on the site of `issuer`; false when either is not an
    /// `HTTPURL` (the flow refuses such a verification address anyway).
    public static func matchesIssuer(verificationURI: String, issuer: String) -> Bool {
        guard let verification = HTTPURL(string: verificationURI), let provider = HTTPURL(string: issuer) else { return false }
        return sameSite(verification.host, provider.host)
    }

    private static func isIPv4(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }
}
