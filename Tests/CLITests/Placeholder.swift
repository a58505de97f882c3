import Testing
@Test func placeholder_CLITests() { #expect(1 + 1 == 2) }
