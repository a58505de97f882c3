import LatchkeyHTTP
import Latchkey
import LatchkeyJOSE
import LatchkeyQR
import Synchronization

/// Shows a sign-in's progress. With `--json`: one JSON Lines event per `LoginEvent` on stdout,
/// exactly in the contract's shapes. Otherwise: text for people on stderr — the URL, the code, a
/// QR code and a countdown on a terminal; plain lines when stderr is not a terminal.
final class LoginPresenter: Sendable {
    let console: Console
    let json: Bool
    let showQR: Bool
    let openBrowser: Bool
    let flow: LoginFlow
    private let statusLine: StatusLine?
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// A presenter for one login.
    init(console: Console, json: Bool, showQR: Bool, openBrowser: Bool, flow: LoginFlow) {
        self.console = console
        self.json = json
        self.showQR = showQR
        self.openBrowser = openBrowser
        self.flow = flow
        statusLine = console.stderrIsTTY && !json && !console.quiet ? StatusLine(console: console) : nil
    }

    /// Handles one event from the flow. Called synchronously by the library; never blocks.
    func handle(_ event: LoginEvent) {
        if json { console.outLine(LoginPresenter.jsonLine(event).jsonText) }
        switch event {
        case let .verification(authorization, expiresAt):
            if showQR || !json { showVerification(authorization, expiresAt: expiresAt) }
        case let .authorizationURL(url):
            if !json { showAuthorizationURL(TerminalText.singleLine(url.absoluteString)) }
            if openBrowser { BrowserLauncher.open(url.absoluteString, console: console) }
        case let .pending(next):
            statusLine?.setNote("checking every \(next) s")
        case let .slowDown(interval):
            say("The server asked to slow down; checking every \(interval) s.")
            statusLine?.setNote("checking every \(interval) s")
        case let .retrying(reason, next):
            say("Cannot reach the server (\(TerminalText.singleLine(reason))); retrying in \(next) s.")
        case .offlineAccessWithoutDPoP:
            console.warn("offline_access without DPoP: the refresh token is a bearer secret on this device"
                         + " (--dpop always, or --require-dpop-for-offline-access to refuse)")
        case let .authorized(issuer, subject, _, expiresAt, verified, _):
            stopTicking()
            guard !json else { return }
            // Issuer and subject come from the server (the ID token): sanitised before display.
            var line = "Signed in to \(TerminalText.singleLine(issuer))"
            if let subject { line += " as \(TerminalText.singleLine(subject))" }
            if let expiresAt { line += "; access token valid until \(RFC3339.format(expiresAt))" }
            line += verified ? " (ID token verified)." : "."
            console.info(console.bold("✓ ") + line + "\n")
        }
    }

    /// Emits the JSON error event (with `--json`) for a failed login.
    func failed(_ report: FailureReport) {
        stopTicking()
        guard json else { return }
        let object = JSONObject([
            ("event", .string("error")),
            ("error", .string(report.code)),
            ("exit_code", .integer(Int64(report.exitCode))),
            ("message", .string(report.message)),
        ])
        console.outLine(JSONValue.object(object).jsonText)
    }

    /// Stops the countdown and erases it.
    func stopTicking() {
        ticker.withLock { $0?.cancel(); $0 = nil }
        statusLine?.clear()
    }

    /// The contract's JSON shape for `event`. `retrying` has no shape of its own: to a script it
    /// is still "pending", so it is reported as such.
    static func jsonLine(_ event: LoginEvent) -> JSONValue {
        let pairs: [(String, JSONValue)]
        switch event {
        case let .verification(a, expiresAt):
            pairs = [("event", "verification"), ("verification_uri", .string(a.verificationURI)),
                     ("verification_uri_complete", a.verificationURIComplete.map(JSONValue.string) ?? .null),
                     ("user_code", .string(a.userCode)), ("expires_at", .string(RFC3339.format(expiresAt))),
                     ("interval", .integer(a.interval))]
        case let .authorizationURL(url):
            pairs = [("event", "authorization_url"), ("url", .string(url.absoluteString))]
        case let .pending(next):
            pairs = [("event", "pending"), ("next_poll_in", .integer(Int64(next)))]
        case let .retrying(_, next):
            pairs = [("event", "pending"), ("next_poll_in", .integer(Int64(next)))]
        case let .slowDown(interval):
            pairs = [("event", "slow_down"), ("interval", .integer(Int64(interval)))]
        case .offlineAccessWithoutDPoP:
            pairs = [("event", "warning"), ("warning", "offline_access_without_dpop")]
        case let .authorized(issuer, subject, scope, expiresAt, verified, binding):
            pairs = [("event", "authorized"), ("issuer", .string(issuer)),
                     ("subject", subject.map(JSONValue.string) ?? .null), ("scope", scope.map(JSONValue.string) ?? .null),
                     ("expires_at", expiresAt.map { .string(RFC3339.format($0)) } ?? .null),
                     ("id_token_verified", .bool(verified)), ("token_binding", .string(binding.rawValue))]
        }
        return .object(JSONObject(pairs))
    }

    private func say(_ line: String) {
        guard !json else { return }
        statusLine?.clear()
        console.info(line + "\n")
        statusLine?.draw()
    }

    private func showVerification(_ a: DeviceAuthorizationResponse, expiresAt: Timestamp) {
        var text = ""
        // The library accepted these URIs only as https (or http to loopback); what is shown is
        // still server text, so it is sanitised. The QR code encodes the exact, checked URI.
        let qrTarget = a.verificationURIComplete ?? a.verificationURI
        let uri = TerminalText.singleLine(a.verificationURI)
        let userCode = TerminalText.singleLine(a.userCode)
        if !json {
            if console.stderrIsTTY {
                text += "\nTo sign in, open this address on your phone or computer:\n\n    "
                    + console.bold(uri) + "\n\nand enter the code:\n\n"
                    + UserCodeBanner.render(userCode, console: console) + "\n"
            } else {
                text += "To sign in, open \(uri) and enter the code \(userCode)\n"
                if let complete = a.verificationURIComplete {
                    text += "Or open \(TerminalText.singleLine(complete)) (the code is filled in)\n"
                }
            }
        }
        if showQR, let code = try? QRCode(text: qrTarget) {
            let qr = QRTerminalRenderer(quietZone: 4, colour: console.colour).render(code)
            text += (json ? "" : "Or scan this QR code with your phone:\n\n") + qr + "\n"
        }
        if !json {
            text += "The code expires at \(RFC3339.format(expiresAt)). Press Ctrl-C to cancel.\n"
        }
        console.info(text)
        if let statusLine {
            statusLine.setDeadline(expiresAt)
            statusLine.setNote("checking every \(a.interval) s")
            let task = statusLine.startTicking()
            ticker.withLock { $0?.cancel(); $0 = task }
        }
    }

    private func showAuthorizationURL(_ url: String) {
        switch flow {
        case .paste:
            console.info("Open this address in any browser and sign in:\n\n    \(url)\n\n"
                + "Your browser is then sent to a local address that may fail to load; copy that address\n"
                + "from the address bar and paste it here (or just the code).\n")
        default:
            console.info("Open this address in a browser on this machine to sign in:\n\n    \(url)\n\n"
                + "Waiting for the browser to come back… (Ctrl-C to cancel)\n")
        }
    }
}
