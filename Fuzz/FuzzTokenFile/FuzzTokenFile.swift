import FoundationEssentials
import Latchkey
import LatchkeyCrypto

// libFuzzer entry point for the encrypted token file reader (docs/token-file.md).
//
// Every input is used twice:
//  1. as a whole token file: `TokenFile.decode`, then `open` with the fixed key below. A decoded
//     file must re-encode to exactly the input bytes (the format has one encoding per file).
//  2. as a payload: sealed under a valid header with the fixed key, then decoded and opened, so
//     the JSON session decoder sees arbitrary (authenticated) bytes, which path 1 almost never
//     reaches because a mutated file fails GCM authentication first.
// Any input must end in a value or a TokenStoreError, never a crash.
//
// Seeds: Tests/FuzzCorpus/tokenfile (valid files sealed with `fuzzKey`, plus edge cases).
// Build: swift build --sanitize=fuzzer --scratch-path /work/main/.build-fuzzstore --product FuzzTokenFile
// Run:   SWIFT_BACKTRACE=enable=no nice -n 10 /work/main/.build-fuzzstore/debug/FuzzTokenFile \
//            -max_total_time=600 -print_final_stats=1 /tmp/corpus-tokenfile Tests/FuzzCorpus/tokenfile

/// The fixed file key: bytes 0, 1, …, 31. The seed files are sealed with it.
let fuzzKey = SecretBytes((0..<32).map { UInt8($0) })
let fuzzNonce = [UInt8](repeating: 0x5A, count: 12)
let fuzzSalt = [UInt8](repeating: 0xA5, count: 16)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // 1. The bytes as a token file.
    if let file = try? TokenFile.decode(bytes, path: "fuzz") {
        if file.encoded() != bytes { fatalError("decode/encode is not an exact round trip") }
        if let session = try? file.open(fileKey: fuzzKey, expectedProfile: file.profile, path: "fuzz") {
            if session.profile != file.profile { fatalError("opened a session of another profile") }
        }
        if file.profile != "default", (try? file.open(fileKey: fuzzKey, expectedProfile: "default", path: "fuzz")) != nil {
            fatalError("opened a file of profile \(file.profile) as 'default'")
        }
    }

    // 2. The bytes as an authenticated payload.
    let file = TokenFile(
        keySource: .machine, profile: "default", keyDerivation: .hkdfSHA256(salt: fuzzSalt),
        nonce: fuzzNonce, ciphertext: [UInt8](repeating: 0, count: bytes.count), tag: [])
    guard
        let sealed = try? AESGCM.seal(
            bytes, key: fuzzKey, nonce: fuzzNonce,
            authenticating: file.header + Array("default".utf8))
    else { return 0 }
    let wire = file.header + sealed.ciphertext + sealed.tag
    guard !bytes.isEmpty, bytes.count <= TokenFile.maximumByteCount - 1024 else { return 0 }
    guard let reparsed = try? TokenFile.decode(wire, path: "fuzz") else {
        fatalError("a well-formed file with a \(bytes.count)-byte payload did not decode")
    }
    if let session = try? reparsed.open(fileKey: fuzzKey, expectedProfile: "default", path: "fuzz") {
        // An accepted payload must survive a save/load cycle unchanged.
        guard
            let again = try? TokenFile.seal(
                session, keySource: .machine, keyDerivation: .hkdfSHA256(salt: fuzzSalt),
                nonce: fuzzNonce, fileKey: fuzzKey),
            let reopened = try? TokenFile.decode(again.encoded(), path: "fuzz")
                .open(fileKey: fuzzKey, expectedProfile: "default", path: "fuzz")
        else { fatalError("an accepted session could not be written back") }
        if reopened != session { fatalError("session changed across a save/load cycle") }
    }
    return 0
}
