/// `openssl s_server` on a port it binds itself (`-accept 127.0.0.1:0`). Once it listens it prints
/// `ACCEPT 127.0.0.1:PORT`, which is the readiness signal and the port in one: no port picked in
/// advance that another process can take first (the "s_server did not start" flake), and no polling.
/// Not `-quiet`: that silences the ACCEPT line.
final class OpenSSLServer: Sendable {
    let process: SpawnedProcess
    let port: Int

    init(_ options: [String], timeout: Double = 30) throws {
        let log = TestEnvironment.makeTemporaryDirectory() + "/s_server.log"
        process = try SpawnedProcess(["openssl", "s_server", "-accept", "127.0.0.1:0"] + options, stderrPath: log)
        let line: String
        do {
            line = try process.readLine(timeout: timeout) { $0.hasPrefix("ACCEPT ") }
        } catch {
            process.terminate()
            throw SpawnError.failed("s_server did not start (\(error)): \(TestEnvironment.readFile(log))")
        }
        guard let p = line.split(separator: ":").last.flatMap({ Int($0) }), (1...65535).contains(p) else {
            process.terminate()
            throw SpawnError.failed("s_server printed \(line)")
        }
        port = p
    }

    deinit { process.terminate() }
}
