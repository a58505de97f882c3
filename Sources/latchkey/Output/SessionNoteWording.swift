import Latchkey

/// The `-v` lines for what a session did on its own (`SessionNote`).
enum SessionNoteWording {
    static func line(_ note: SessionNote) -> String {
        switch note {
        case .nonceRefused(let origin, let length):
            return "* DPoP-Nonce from \(origin) refused (\(length) bytes; RFC 9449 allows 1*NQCHAR, we keep at most "
                + "\(DPoPNonce.maximumLength)): neither stored nor sent"
        case .nonceNotSaved(let origin, let reason):
            return "* the DPoP-Nonce of \(origin) was not saved (\(TerminalText.singleLine(reason))); "
                + "the tokens are untouched, the next process makes one more round trip"
        case .savedWithoutNonces:
            return "* the refreshed session did not fit the space reserved for it: saved without the remembered nonces"
        }
    }
}
