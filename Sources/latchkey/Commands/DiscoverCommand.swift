import Latchkey
import LatchkeyJOSE

/// `latchkey discover --issuer URL`: fetches and validates the issuer's metadata and prints it.
enum DiscoverCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let issuer = try context.arguments.required("issuer")
        let transport = ProfileAccess(context).transport()
        let metadata = try await TerminationSignals.startWatching().run {
            try await ProviderDiscovery.discover(issuer: issuer, transport: transport)
        }
        context.console.outLine(JSONOutput.text(json(metadata), console: context.console))
        return 0
    }

    /// The metadata as validated, with the standard member names: what Latchkey models, then
    /// every other member the provider sent (`end_session_endpoint`, …), from the one codec.
    static func json(_ m: ProviderMetadata) -> JSONValue { .object(m.json()) }
}
