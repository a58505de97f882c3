import Glibc
import Synchronization
import Testing

@testable import LatchkeyHTTP

@Suite struct CAFileResolutionTests {
    @Test func precedence() {
        // The program's own variable (the CLI's LATCHKEY_CA_FILE) arrives as `explicit`; the library knows none.
        let env = ["LATCHKEY_CA_FILE": "/l.pem", "SSL_CERT_FILE": "/s.pem"]
        #expect(HTTPClient.resolveCAFile(explicit: "/e.pem", environment: env) == "/e.pem")
        #expect(HTTPClient.resolveCAFile(explicit: nil, environment: env) == "/s.pem")
        #expect(HTTPClient.resolveCAFile(explicit: "", environment: ["SSL_CERT_FILE": "/s.pem"]) == "/s.pem")
    }

    /// A remembered default (the CLI profile's bundle from `login --ca-file`) is below the
    /// program's setting and `SSL_CERT_FILE`, and above the system bundle.
    @Test func aRememberedBundleIsTheDefault() {
        let env = ["SSL_CERT_FILE": "/s.pem"]
        #expect(HTTPClient.resolveCAFile(explicit: nil, environment: [:], remembered: "/r.pem") == "/r.pem")
        #expect(HTTPClient.resolveCAFile(explicit: "/e.pem", environment: env, remembered: "/r.pem") == "/e.pem")
        #expect(HTTPClient.resolveCAFile(explicit: nil, environment: env, remembered: "/r.pem") == "/s.pem")
        #expect(HTTPClient.resolveCAFile(explicit: "", environment: ["SSL_CERT_FILE": ""], remembered: "/r.pem") == "/r.pem")
        #expect(HTTPClient.Configuration.fromEnvironment([:], remembered: "/r.pem").caFile == "/r.pem")
        let none = HTTPClient.resolveCAFile(explicit: nil, environment: [:], remembered: "")
        #expect(none == nil || HTTPClient.systemCABundlePaths.contains(none!))
    }

    @Test func fallsBackToAReadableSystemBundle() {
        let found = HTTPClient.resolveCAFile(explicit: nil, environment: [:])
        if let found {
            #expect(HTTPClient.systemCABundlePaths.contains(found))
        } else {
            #expect(HTTPClient.systemCABundlePaths.allSatisfy { !TestEnvironment.readFile($0).contains("BEGIN") })
        }
    }

    /// A named bundle that cannot be read is its own error, naming the file and why, before any
    /// connection (port 1 would refuse one).
    @Test func anUnreadableBundleIsNamedBeforeConnecting() async {
        for (path, code) in [("/nonexistent/ca.pem", ENOENT), ("/", EISDIR)] {
            var lines: [String] = []
            let log = LogLines()
            let client = HTTPClient(configuration: .init(caFile: path, logger: { log.append($0) }))
            let e = await httpError { try await client.send(HTTPRequest(url: .init(string: "https://localhost:1/")!, timeout: 2)) }
            #expect(e == .unreadableCABundle(path: path, errno: code), "\(path): \(String(describing: e))")
            lines = log.lines
            #expect(lines == ["* CA bundle: \(path)"], "\(lines)")
        }
        #expect(
            HTTPError.unreadableCABundle(path: "/x.pem", errno: ENOENT).description
                == "cannot read the CA bundle /x.pem: no such file or directory")
    }
}

@Suite struct CAChainCacheTests {
    @Test func reusesOneParseSequentiallyAndLendsDistinctCopiesConcurrently() async throws {
        guard TestEnvironment.require(["openssl"]) else { return }
        let pki = try await offPool { try Fixtures.pki.get() }
        let cache = CAChainCache(path: pki.caFile)
        let a = try cache.checkOut()
        cache.checkIn(a)
        let b = try cache.checkOut()
        #expect(a === b)
        // While `b` is lent out, a second borrower must get its own parse (EC verification mutates keys).
        let c = try cache.checkOut()
        #expect(b !== c)
        cache.checkIn(b)
        cache.checkIn(c)
    }
}

/// Collects verbose-log lines from any thread.
final class LogLines: Sendable {
    private let storage = Mutex<[String]>([])
    func append(_ line: String) { storage.withLock { $0.append(line) } }
    var lines: [String] { storage.withLock { $0 } }
}
