import Testing
@Test func placeholder_IntegrationTests() { #expect(1 + 1 == 2) }
