import Testing

@testable import LatchkeyJOSE

@Suite struct Base64URLTests {
    @Test func rfc4648Vectors() throws {
        let cases = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")
        ]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func urlSafeAlphabetRoundTrip() throws {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x3E, 0x3F]
        let s = Base64URL.encode(bytes)
        #expect(s == "-_-_AD4_")
        #expect(try Base64URL.decode(s) == bytes)
        for n in 0..<40 {
            let b = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(try Base64URL.decode(Base64URL.encode(b)) == b)
        }
    }

    @Test(arguments: [
        "Zg==", "Zm8=", "Zm9v ", " Zm9v", "Zm\n9v", "Zm+v", "Zm/v", "Z", "Zm9vY", "Zh", "Zm9", "QR", "AB", "Zm9v\u{0}", "Zm9vé"
    ])
    func rejectsNonStrictInput(_ text: String) {
        #expect(throws: JOSEError.self) { try Base64URL.decode(text) }
    }

    @Test func canonicalTrailingBitsAccepted() throws {
        #expect(try Base64URL.decode("QQ") == [0x41])
        #expect(try Base64URL.decode("QUE") == [0x41, 0x41])
    }
}
