import Testing

@testable import latchkey

/// The dispatch table is keyed by the catalog's specs (names written once): every command of the
/// catalog has exactly one runner, and the table holds nothing the catalog does not list.
@Suite("Command dispatch")
struct CommandDispatchTests {
    @Test func everyCatalogCommandHasOneRunner() {
        let catalog = CommandCatalog.all.map(\.name)
        let table = CommandDispatch.runners.map(\.spec.name)
        for name in catalog {
            #expect(table.filter { $0 == name }.count == 1, "\(name): \(table.filter { $0 == name }.count) runners")
        }
        #expect(Set(table).subtracting(catalog).isEmpty, "runners for commands the catalog lacks: \(Set(table).subtracting(catalog))")
        #expect(table.count == catalog.count)
    }

    /// The commands that must answer before the async runtime starts (the cached `token` path,
    /// local files) keep a synchronous runner.
    @Test(arguments: ["token", "proof", "id-token", "claims", "status", "profiles", "completion", "manual"])
    func answersWithoutWaiting(name: String) throws {
        let spec = try #require(CommandCatalog.all.first { $0.name == name })
        switch CommandDispatch.runner(for: spec) {
        case .synchronous?, .synchronousFirst?: break
        case .asynchronous?, nil: Issue.record("\(name) has no synchronous path")
        }
    }
}
