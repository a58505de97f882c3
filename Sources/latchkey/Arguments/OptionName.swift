/// How option names are spelled from protocol names.
enum OptionName {
    /// `device_authorization_endpoint` → `device-authorization-endpoint`: the login option that
    /// supplies a missing metadata member.
    static func fromMetadataMember(_ name: String) -> String {
        String(name.map { $0 == "_" ? "-" : $0 })
    }
}
