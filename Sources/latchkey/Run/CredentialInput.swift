import Glibc
import Latchkey

/// Reads a git credential request from stdin: bytes up to a blank line or the end of input, at most
/// `CredentialRequest.maxBytes` (+1, so the parser sees that the limit was passed). git writes the
/// request and then waits for the answer, so the read must stop at the blank line, not wait for EOF.
enum CredentialInput {
    static func read(descriptor: Int32 = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count <= CredentialRequest.maxBytes {
            let n = Glibc.read(descriptor, &byte, 1)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { break }
            bytes.append(byte)
            if byte == 0x0A {
                let count = bytes.count
                if count == 1 || bytes[count - 2] == 0x0A || (count >= 3 && bytes[count - 2] == 0x0D && bytes[count - 3] == 0x0A) {
                    break
                }
            }
        }
        return bytes
    }
}
