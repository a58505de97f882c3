/// The `{tenantid}` placeholder of Microsoft Entra's multi-tenant metadata (providers.md), taken
/// apart by hand: the shipped modules do without `_StringProcessing` (Package.swift).
enum EntraTenantTemplate {
    static let placeholder = "{tenantid}"

    /// `template` split at its first placeholder, or nil when it has none.
    static func parts(_ template: String) -> (prefix: String, suffix: String)? {
        let t = Array(template.utf8), p = Array(placeholder.utf8)
        guard t.count >= p.count else { return nil }
        for i in 0...(t.count - p.count) where Array(t[i..<(i + p.count)]) == p {
            return (String(decoding: t[..<i], as: UTF8.self), String(decoding: t[(i + p.count)...], as: UTF8.self))
        }
        return nil
    }

    /// `template` with every placeholder replaced by `tenant`.
    static func substitute(_ template: String, tenant: String) -> String {
        var rest = template
        var out = ""
        while let (prefix, suffix) = parts(rest) {
            out += prefix + tenant
            rest = suffix
        }
        return out + rest
    }
}
