import FoundationEssentials
import LatchkeyHTTP

/// A throwaway PKI made by Tests/Harness/http/make_certs.sh with openssl, once per test process.
struct TestPKI: Sendable {
    let directory: String
    var caFile: String { directory + "/ca.pem" }
    var otherCAFile: String { directory + "/other-ca.pem" }
    func cert(_ name: String) -> (cert: String, key: String) { (directory + "/\(name).pem", directory + "/\(name).key") }

    static func make() throws -> TestPKI {
        let dir = TestEnvironment.makeTemporaryDirectory()
        let status = try SpawnedProcess.run(
            ["/bin/sh", TestEnvironment.harnessDirectory + "/make_certs.sh", dir],
            stderrPath: dir + "/make_certs.log")
        guard status == 0 else {
            throw SpawnError.failed("make_certs.sh failed (\(status)): \(TestEnvironment.readFile(dir + "/make_certs.log"))")
        }
        return TestPKI(directory: dir)
    }
}

/// The scripted Python server (Tests/Harness/http/test_server.py), plain or TLS.
final class ScriptedServer: Sendable {
    let process: SpawnedProcess
    let port: Int
    let scheme: String
    let host: String

    init(tls: (cert: String, key: String)? = nil, bind: String = "127.0.0.1", urlHost: String? = nil) throws {
        var args = ["python3", TestEnvironment.harnessDirectory + "/test_server.py", "--host", bind]
        if let tls { args += ["--cert", tls.cert, "--key", tls.key] }
        process = try SpawnedProcess(args)
        let line = try process.readLine(timeout: 10)
        guard let p = Int(line) else { throw SpawnError.failed("test server printed \(line)") }
        port = p
        scheme = tls == nil ? "http" : "https"
        host = urlHost ?? (tls == nil ? bind : "localhost")
    }

    func url(_ path: String) -> HTTPURL {
        let h = host.contains(":") ? "[\(host)]" : host
        return HTTPURL(string: "\(scheme)://\(h):\(port)\(path)")!
    }

    deinit { process.terminate() }
}

/// Shared, lazily made fixtures: one PKI and one plain and one TLS server per test process.
enum Fixtures {
    static let pki: Result<TestPKI, SpawnError> = Result { () throws(SpawnError) -> TestPKI in
        do { return try TestPKI.make() } catch let e as SpawnError { throw e } catch { throw .failed("\(error)") }
    }
    static let plainServer: Result<ScriptedServer, SpawnError> = Result { () throws(SpawnError) -> ScriptedServer in
        do { return try ScriptedServer() } catch let e as SpawnError { throw e } catch { throw .failed("\(error)") }
    }
    static let tlsServer: Result<ScriptedServer, SpawnError> = Result { () throws(SpawnError) -> ScriptedServer in
        do { return try ScriptedServer(tls: try pki.get().cert("localhost")) } catch let e as SpawnError { throw e } catch {
            throw .failed("\(error)")
        }
    }

    /// A client trusting the test CA, with small timeouts.
    static func client(
        caFile: String? = nil, proxy: ProxySettings? = nil,
        limits: HTTPResponseParser.Limits = .init(),
        logger: (@Sendable (String) -> Void)? = nil
    ) throws -> HTTPClient {
        let ca = try caFile ?? pki.get().caFile
        return HTTPClient(configuration: .init(caFile: ca, connectTimeout: 3, proxy: proxy, limits: limits, logger: logger))
    }
}

/// Runs `body` and returns the HTTPError it threw (nil if it threw nothing or something else).
func httpError(_ body: () async throws -> some Any) async -> HTTPError? {
    do { _ = try await body(); return nil } catch let e as HTTPError { return e } catch { return nil }
}
