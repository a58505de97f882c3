import Testing
@Test func placeholder_LatchkeyHTTPTests() { #expect(1 + 1 == 2) }
