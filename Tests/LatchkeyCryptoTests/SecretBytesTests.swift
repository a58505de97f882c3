import Testing

@testable import LatchkeyCrypto

/// SecretBytes: value semantics over one zeroed-on-release buffer, redacted description.
@Suite struct SecretBytesTests {
    @Test func holdsACopyOfTheBytes() {
        var source: [UInt8] = [1, 2, 3, 4]
        let secret = SecretBytes(source)
        source[0] = 9
        #expect(secret.count == 4)
        #expect(secret.bytes == [1, 2, 3, 4])
        #expect(secret.withUnsafeBytes { Array($0) } == [1, 2, 3, 4])
    }

    @Test func emptySecret() {
        let secret = SecretBytes([])
        #expect(secret.count == 0)
        #expect(secret.bytes.isEmpty)
        #expect(secret.withUnsafeBytes { $0.count } == 0)
    }

    @Test func copiesShareStorageUntilTheLastIsReleased() {
        let a = SecretBytes([7, 7, 7])
        let b = a
        #expect(a.storage === b.storage)
        weak var storage: SecretBytes.Storage?
        do {
            let scoped = SecretBytes([1, 2, 3])
            storage = scoped.storage
            #expect(storage != nil)
        }
        #expect(storage == nil, "storage outlived its last reference")
    }

    @Test func wipeZeroesTheBuffer() {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xA5)
        SecretBytes.Storage.wipe(buffer)
        #expect(buffer.allSatisfy { $0 == 0 })
    }

    @Test func descriptionDoesNotRevealBytes() {
        let secret = SecretBytes([0xde, 0xad, 0xbe, 0xef])
        let text = "\(secret)"
        #expect(text == "SecretBytes(4 bytes)")
        #expect(!text.contains("de"))
    }

    @Test func randomSecrets() throws {
        let random = try SecureRandom()
        let a = SecretBytes(randomCount: 32, using: random)
        let b = SecretBytes(randomCount: 32, using: random)
        #expect(a.count == 32)
        #expect(a.bytes != b.bytes)
    }
}
