import Testing
@Test func placeholder_LatchkeyTests() { #expect(1 + 1 == 2) }
