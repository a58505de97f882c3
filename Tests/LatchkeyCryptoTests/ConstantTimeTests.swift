import Testing

@testable import LatchkeyCrypto

@Suite struct ConstantTimeTests {
    @Test func equality() {
        #expect(ConstantTime.equals([], []))
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
        let big = [UInt8](repeating: 0x55, count: 4096)
        var other = big
        #expect(ConstantTime.equals(big, other))
        other[4095] ^= 1
        #expect(!ConstantTime.equals(big, other))
    }
}
