import Testing
@Test func placeholder_LatchkeyStoreTests() { #expect(1 + 1 == 2) }
