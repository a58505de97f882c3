import Testing

@testable import LatchkeyCrypto

/// FIPS 180-4 examples and RFC 4231 HMAC vectors.
@Suite struct HashTests {
    @Test(arguments: [
        (HashAlgorithm.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (.sha384, "abc", "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (.sha384, "", "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b"),
        (
            .sha512, "abc",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
        ),
        (
            .sha512, "",
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e"
        )
    ])
    func digest(_ hash: HashAlgorithm, _ message: String, _ expected: String) {
        let out = hash.hash(Array(message.utf8))
        #expect(out.count == hash.byteCount)
        #expect(Hex.encode(out) == expected)
    }

    @Test func nonContiguousCollectionsHashTheSame() {
        let message = Array("The quick brown fox".utf8)
        let viaArray = HashAlgorithm.sha256.hash(message)
        let viaLazy = HashAlgorithm.sha256.hash(message.lazy.map { $0 })
        let viaSlice = HashAlgorithm.sha256.hash(([0] + message)[1...])
        #expect(viaArray == viaLazy)
        #expect(viaArray == viaSlice)
    }

    @Test func byteCounts() {
        #expect(HashAlgorithm.sha256.byteCount == 32)
        #expect(HashAlgorithm.sha384.byteCount == 48)
        #expect(HashAlgorithm.sha512.byteCount == 64)
    }

    // RFC 4231 test cases 1, 2 and 6.
    static let key1 = [UInt8](repeating: 0x0b, count: 20)
    static let data1 = Array("Hi There".utf8)
    static let key2 = Array("Jefe".utf8)
    static let data2 = Array("what do ya want for nothing?".utf8)
    static let key6 = [UInt8](repeating: 0xaa, count: 131)
    static let data6 = Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)

    @Test(arguments: [
        (HashAlgorithm.sha256, 1, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (.sha384, 1, "afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6"),
        (
            .sha512, 1,
            "87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854"
        ),
        (.sha256, 2, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (.sha384, 2, "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649"),
        (
            .sha512, 2,
            "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737"
        ),
        (.sha256, 6, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (.sha384, 6, "4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952"),
        (
            .sha512, 6,
            "80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598"
        )
    ])
    func hmacRFC4231(_ hash: HashAlgorithm, _ testCase: Int, _ expected: String) {
        let (key, data): ([UInt8], [UInt8]) =
            switch testCase {
            case 1: (Self.key1, Self.data1)
            case 2: (Self.key2, Self.data2)
            default: (Self.key6, Self.data6)
            }
        #expect(Hex.encode(HMAC.authenticationCode(hash, key: key, data: data)) == expected)
    }
}
