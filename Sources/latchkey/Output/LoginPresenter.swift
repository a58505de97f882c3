import Latchkey
import LatchkeyHTTP
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
    /// `--qr-file`: where the verification address's QR code image goes, if anywhere.
    let qrFile: QRImageFile?
    private let statusLine: StatusLine?
    private let ticker = Mutex<Task<Void, Never>?>(nil)
    private let issuerValue = Mutex<String?>(nil)
    private let offlineAdvice = Mutex<OfflineAccessAdvice?>(nil)

    /// A presenter for one login.
    init(console: Console, json: Bool, showQR: Bool, openBrowser: Bool, flow: LoginFlow, qrFile: QRImageFile? = nil) {
        self.console = console
        self.json = json
        self.showQR = showQR
        self.openBrowser = openBrowser
        self.flow = flow
        self.qrFile = qrFile
        statusLine = console.stderrIsTTY && !json && !console.quiet ? StatusLine(console: console) : nil
    }

    /// The issuer being signed in to (discovery refuses any other), named beside the code and
    /// compared with the verification address (cross-device safety, RFC 8628 §5.4).
    var issuer: String? {
        get { issuerValue.withLock { $0 } }
        set { issuerValue.withLock { $0 = newValue } }
    }

    /// What the offline_access warning may advise for this profile; nil (the default) when it was
    /// shown for the profile already, so it is not repeated.
    var offlineAccessAdvice: OfflineAccessAdvice? {
        get { offlineAdvice.withLock { $0 } }
        set { offlineAdvice.withLock { $0 = newValue } }
    }

    /// True when this login shows the offline_access warning if the sign-in reports it: the
    /// profile, saved just before the report, remembers it then.
    var showsOfflineAccessWarning: Bool { offlineAccessAdvice != nil && (!console.quiet || json) }

    /// A warning that is not an error: with `--json` the contract's `warning` event on stdout (no
    /// human text on stderr), else one `latchkey: warning:` line, or `latchkey: note:` for `note`.
    func warning(code: String, _ message: String, note: Bool = false) {
        if json {
            console.outLine(Self.warningLine(code: code, message: message).jsonText)
        } else if note {
            console.info("latchkey: note: " + TerminalText.singleLine(message) + "\n")
        } else {
            console.warn(message)
        }
    }

    /// `{"event":"warning","code":…,"message":…}`.
    static func warningLine(code: String, message: String) -> JSONValue {
        .object(JSONObject([("event", "warning"), ("code", .string(code)), ("message", .string(message))]))
    }

    /// Handles one event from the flow. Called synchronously by the library; never blocks.
    func handle(_ event: LoginEvent) {
        // The image first, so a kiosk script that reacts to the `verification` event finds it.
        if case let .verification(authorization, _) = event { writeQRFile(authorization) }
        // The offline_access warning is written by `warning(code:_:)`, once per profile.
        if json, !event.isOfflineAccessWarning { console.outLine(LoginPresenter.jsonLine(event, issuer: issuer).jsonText) }
        switch event {
        case let .verification(authorization, expiresAt):
            if showQR || !json { showVerification(authorization, expiresAt: expiresAt) }
        case let .backchannel(request, response, expiresAt):
            if !json { showBackchannel(request, response, expiresAt: expiresAt) }
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
        case let .offlineAccessWithoutDPoP(dpopOffered):
            guard showsOfflineAccessWarning, let advice = offlineAccessAdvice else { return }
            warning(code: "offline_access_unbound", advice.message(dpopOffered: dpopOffered))
        case let .clockSkew(offset):
            // With --json the event above says it; the line is for people and logs.
            if !json {
                statusLine?.clear()
                console.warn(ClockSkewNotice.line(offset))
                statusLine?.draw()
            }
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
            ("message", .string(report.message))
        ])
        console.outLine(JSONValue.object(object).jsonText)
    }

    /// Stops the countdown and erases it.
    func stopTicking() {
        ticker.withLock {
            $0?.cancel(); $0 = nil
        }
        statusLine?.clear()
    }

    /// The contract's JSON shape for `event`. `retrying` has no shape of its own: to a script it
    /// is still "pending", so it is reported as such. `issuer` completes the `verification` event
    /// (its last two members come after the original five, which scripts read by position).
    static func jsonLine(_ event: LoginEvent, issuer: String? = nil) -> JSONValue {
        let pairs: [(String, JSONValue)]
        switch event {
        case let .verification(a, expiresAt):
            // null when there is no issuer URL to compare with (never the case for a login).
            let matches = issuer.flatMap { HTTPURL(string: $0) == nil ? nil : $0 }
                .map { VerificationSite.matchesIssuer(verificationURI: a.verificationURI, issuer: $0) }
            pairs = [
                ("event", "verification"), ("verification_uri", .string(a.verificationURI)),
                ("verification_uri_complete", a.verificationURIComplete.map(JSONValue.string) ?? .null),
                ("user_code", .string(a.userCode)), ("expires_at", .string(RFC3339.format(expiresAt))),
                ("interval", .integer(a.interval)), ("issuer", issuer.map(JSONValue.string) ?? .null),
                ("verification_host_matches_issuer", matches.map(JSONValue.bool) ?? .null)
            ]
        case let .backchannel(request, response, expiresAt):
            pairs = [
                ("event", "backchannel"), ("login_hint", .string(request.loginHint)),
                ("binding_message", request.bindingMessage.map(JSONValue.string) ?? .null),
                ("expires_at", .string(RFC3339.format(expiresAt))), ("interval", .integer(response.interval))
            ]
        case let .authorizationURL(url):
            pairs = [("event", "authorization_url"), ("url", .string(url.absoluteString))]
        case let .pending(next):
            pairs = [("event", "pending"), ("next_poll_in", .integer(Int64(next)))]
        case let .retrying(_, next):
            pairs = [("event", "pending"), ("next_poll_in", .integer(Int64(next)))]
        case let .slowDown(interval):
            pairs = [("event", "slow_down"), ("interval", .integer(Int64(interval)))]
        case let .offlineAccessWithoutDPoP(dpopOffered):
            // What `handle` writes through `warning(code:_:)` for a machine-key, non-git profile.
            return warningLine(
                code: "offline_access_unbound",
                message: OfflineAccessAdvice(keySource: .machine, gitProfile: false).message(dpopOffered: dpopOffered))
        case let .clockSkew(offset):
            pairs = [
                ("event", "warning"), ("code", "clock_skew"), ("message", .string(ClockSkewNotice.line(offset))),
                ("offset_seconds", .integer(offset))
            ]
        case let .authorized(issuer, subject, scope, expiresAt, verified, binding):
            pairs = [
                ("event", "authorized"), ("issuer", .string(issuer)),
                ("subject", subject.map(JSONValue.string) ?? .null), ("scope", scope.map(JSONValue.string) ?? .null),
                ("expires_at", expiresAt.map { .string(RFC3339.format($0)) } ?? .null),
                ("id_token_verified", .bool(verified)), ("token_binding", .string(binding.rawValue))
            ]
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
        let crossSite = crossSiteWarning(a)
        if let crossSite { console.warn(crossSite) }
        let signingIn = providerHost.map { " (signing in to \(TerminalText.singleLine($0)))" } ?? ""
        if !json {
            if console.stderrIsTTY {
                text +=
                    "\nTo sign in, open this address on your phone or computer:\n\n    "
                    + console.bold(uri) + "\n\nand enter the code\(signingIn):\n\n"
                    + UserCodeBanner.render(userCode, console: console) + "\n"
            } else {
                text += "To sign in, open \(uri) and enter the code \(userCode)\(signingIn)\n"
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
        startCountdown(until: expiresAt, interval: a.interval)
    }

    /// The terminal's status line counts down to `expiresAt` while the poll runs.
    private func startCountdown(until expiresAt: Timestamp, interval: Int64) {
        guard let statusLine else { return }
        statusLine.setDeadline(expiresAt)
        statusLine.setNote("checking every \(interval) s")
        let task = statusLine.startTicking()
        ticker.withLock {
            $0?.cancel(); $0 = task
        }
    }

    /// The issuer's host, named beside the code.
    private var providerHost: String? { issuer.flatMap { HTTPURL(string: $0)?.host } }

    /// The warning when the verification address is on another site than the issuer, else nil.
    func crossSiteWarning(_ a: DeviceAuthorizationResponse) -> String? {
        guard let issuer, let provider = providerHost, let shown = HTTPURL(string: a.verificationURI)?.host,
            !VerificationSite.matchesIssuer(verificationURI: a.verificationURI, issuer: issuer)
        else { return nil }
        return "the verification address is on \(shown), not on the site of \(provider) you are signing in to;"
            + " enter the code only if you started this sign-in yourself: a code typed into someone else's page signs their device in"
    }

    /// `--qr-file`: (re)writes the image for this code; a failure is a warning, the login goes on.
    private func writeQRFile(_ a: DeviceAuthorizationResponse) {
        guard let qrFile else { return }
        do {
            try qrFile.write(a.verificationURIComplete ?? a.verificationURI)
        } catch {
            console.warn("cannot write the QR code image \(qrFile.path): \(FailureReport(error).message)")
        }
    }

    private func showBackchannel(
        _ request: BackchannelAuthenticationRequest, _ response: BackchannelAuthenticationResponse,
        expiresAt: Timestamp
    ) {
        let who = TerminalText.singleLine(request.loginHint)
        let host = providerHost.map { " (signing in to \(TerminalText.singleLine($0)))" } ?? ""
        var text = (console.stderrIsTTY ? "\n" : "") + "Asking \(who) to approve this sign-in on their own device\(host).\n"
        if let message = request.bindingMessage {
            text +=
                "The request shows the message: \(console.bold(TerminalText.singleLine(message)))\n"
                + "Approve on the phone only if it shows this same message.\n"
        }
        text += "The request expires at \(RFC3339.format(expiresAt)). Press Ctrl-C to cancel.\n"
        console.info(text)
        startCountdown(until: expiresAt, interval: response.interval)
    }

    private func showAuthorizationURL(_ url: String) {
        switch flow {
        case .paste:
            console.info(
                "Open this address in any browser and sign in:\n\n    \(url)\n\n"
                    + "Your browser is then sent to a local address that may fail to load; copy that address\n"
                    + "from the address bar and paste it here (or just the code).\n")
        default:
            console.info(
                "Open this address in a browser on this machine to sign in:\n\n    \(url)\n\n"
                    + "Waiting for the browser to come back… (Ctrl-C to cancel)\n")
        }
    }
}

extension LoginEvent {
    /// True for `.offlineAccessWithoutDPoP`.
    var isOfflineAccessWarning: Bool {
        if case .offlineAccessWithoutDPoP = self { return true }
        return false
    }
}

/// What the offline_access-without-DPoP warning advises: only what can work for this profile at
/// this provider. DPoP where the provider offers it (not for a git profile, whose password is a
/// Bearer token); otherwise a key source whose key is not on the disk, or no offline_access.
struct OfflineAccessAdvice: Sendable, Equatable {
    /// The profile's key source.
    let keySource: KeySource
    /// The profile answers git (`--credential-host`), so it must stay a Bearer profile.
    let gitProfile: Bool

    /// The warning's one line (without the `latchkey: warning: ` prefix).
    func message(dpopOffered: Bool) -> String {
        let unbound = "offline_access without DPoP: the refresh token is a bearer secret on this device"
        if dpopOffered && !gitProfile {
            return unbound + "; the provider offers DPoP: sign in with --dpop auto to bind it to a key"
        }
        var choices: [String] = []
        if keySource == .machine {
            choices.append(
                "keep the token file under a key that is not on this disk"
                    + " (--key-source passphrase or credential, at a profile's first login)")
        }
        choices.append("leave offline_access out of --scope")
        let why = dpopOffered ? "a git profile is a Bearer profile" : "the provider offers no DPoP"
        return unbound + "; \(why): " + choices.joined(separator: ", or ")
    }
}
