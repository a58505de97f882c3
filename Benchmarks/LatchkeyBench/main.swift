import Glibc

// latchkey-bench MODE [--seconds S] [--rounds N]
//   crypto  LatchkeyCrypto primitives next to direct mbedTLS calls (CryptoBench.swift)
//   jose    JWS verification (JOSEBench.swift, owned by the JOSE module)
//   sign    ES256 JWSSigner.sign next to raw mbedTLS ECDSA signing (SignBench.swift)
//   all     both (the default)
// Build with `-c release`; debug figures mean nothing (docs/performance.md).

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "all"
let options = BenchOptions.parse(Array(arguments.dropFirst()))

switch mode {
case "crypto":
    runCryptoBench(options)
case "jose":
    runJOSEBench()
case "sign":
    runSignBench(options)
case "all":
    runCryptoBench(options)
    runJOSEBench()
default:
    BenchOptions.printError("usage: latchkey-bench [crypto|jose|sign|all] [--seconds S] [--rounds N]")
    exit(2)
}
