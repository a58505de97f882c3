import LatchkeyCrypto
print("latchkey 0.1.0 (mbedTLS \(MbedTLSInfo.version))")
