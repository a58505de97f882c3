import Testing

@testable import LatchkeyCrypto

/// SecureRandom: lengths, large requests split across CTR_DRBG's 1024-byte limit, and use from many tasks.
@Suite struct SecureRandomTests {
    @Test func producesRequestedLengths() throws {
        let random = try SecureRandom()
        for count in [0, 1, 16, 32, 1023, 1024, 1025, 5000] {
            #expect(random.bytes(count).count == count)
        }
    }

    @Test func largeRequestIsNotRepetitive() throws {
        let random = try SecureRandom()
        let big = random.bytes(64 * 1024)
        // Requests above MBEDTLS_CTR_DRBG_MAX_REQUEST are split; the chunks must all differ.
        let chunks = stride(from: 0, to: big.count, by: 1024).map { Array(big[$0..<$0 + 1024]) }
        #expect(Set(chunks).count == chunks.count)
        // Loose byte-frequency check: each value expected 256 times in 64 KiB.
        var histogram = [Int](repeating: 0, count: 256)
        for byte in big { histogram[Int(byte)] += 1 }
        #expect(histogram.min()! > 150)
        #expect(histogram.max()! < 380)
    }

    @Test func twoGeneratorsDiffer() throws {
        #expect(try SecureRandom().bytes(32) != SecureRandom().bytes(32))
    }

    @Test func concurrentDrawsFromManyTasksAreDistinct() async throws {
        let random = try SecureRandom()
        let draws = await withTaskGroup(of: [[UInt8]].self) { group in
            for _ in 0..<32 {
                group.addTask {
                    (0..<200).map { i in random.bytes(i % 3 == 0 ? 2000 : 32) }
                }
            }
            var all = [[UInt8]]()
            for await batch in group { all += batch }
            return all
        }
        #expect(draws.count == 32 * 200)
        #expect(Set(draws).count == draws.count)
    }
}
