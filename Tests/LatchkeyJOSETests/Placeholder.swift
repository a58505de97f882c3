import Testing
@Test func placeholder_LatchkeyJOSETests() { #expect(1 + 1 == 2) }
