import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Drives `latchkey login --json` the way a kiosk script does: reads events as they come and,
/// when the `verification` event appears, lets `onVerification` act (approve, interrupt, nothing).
struct DeviceLogin {
    /// What happened.
    struct Outcome {
        let result: ProcessResult
        let events: [JSONValue]
        /// The first `verification` event, if any.
        var verification: JSONValue? { events.first { $0["event"]?.stringValue == "verification" } }
        var eventNames: [String] { JSONLines.names(events) }
    }

    let latchkey: LatchkeyCommand
    let arguments: [String]

    /// Runs the login; when the event named `trigger` appears, `onEvent` receives it and the running
    /// process (for `verification`, read `user_code`; for `authorization_url`, read `url`).
    func run(
        timeout: Duration = .seconds(90), trigger: String = "verification",
        onEvent: (JSONValue, ChildProcess) throws -> Void
    ) throws -> Outcome {
        let child = try latchkey.start(["login", "--json"] + arguments)
        defer { child.terminate() }
        let deadline = ContinuousClock.now + timeout
        var seen: [String] = []
        while ContinuousClock.now < deadline {
            guard let line = child.nextLine(timeout: .milliseconds(500)) else {
                if !child.isRunning { break }
                continue
            }
            seen.append(line)
            if let event = try? JSONParser().parse(line), event["event"]?.stringValue == trigger {
                try onEvent(event, child)
                break
            }
        }
        let remaining = deadline - ContinuousClock.now
        let result = child.waitForExit(timeout: remaining > .zero ? remaining : .seconds(1))
        // waitForExit returns all of stdout, including the lines already read above.
        return Outcome(result: result, events: JSONLines.events(result))
    }
}

/// A fresh state directory and a `latchkey` runner bound to it, removed at the end of the test.
final class Workspace {
    let directory: TemporaryDirectory
    let latchkey: LatchkeyCommand

    init(extraEnvironment: [String: String] = [:]) throws {
        let directory = try TemporaryDirectory(prefix: "latchkey-it-")
        _ = mkdir(directory.path + "/state", 0o700)
        self.directory = directory
        do {
            latchkey = try LatchkeyCommand(stateDirectory: directory.path + "/state", extraEnvironment: extraEnvironment)
        } catch {
            directory.remove()
            throw error
        }
    }

    /// A workspace for the Glewlwyd tests: every command trusts the test CA (`LATCHKEY_CA_FILE`),
    /// also those that never log in (`discover`) or use a copied state folder.
    static func glewlwyd(_ env: IntegrationEnvironment) throws -> Workspace {
        try Workspace(extraEnvironment: ["LATCHKEY_CA_FILE": env.caFile])
    }

    /// A copy of the state folder as it is now (token file, keys, profile), for replay tests.
    func snapshot() throws -> Workspace {
        let copy = try Workspace(extraEnvironment: latchkey.environment.filter { $0.key == "LATCHKEY_CA_FILE" })
        let r = try ProcessRunner.run("/bin/cp", ["-a", latchkey.stateDirectory + "/.", copy.latchkey.stateDirectory])
        #expect(r.exitCode == 0, "cp state: \(r)")
        return copy
    }

    deinit { directory.remove() }
}
