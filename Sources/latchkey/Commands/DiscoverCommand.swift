import Latchkey
import LatchkeyJOSE

/// `latchkey discover --issuer URL`: fetches and validates the issuer's metadata and prints what
/// the provider sent, as validated: every member, the ones latchkey uses as it validated them.
enum DiscoverCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let issuer = try context.arguments.required(.issuer)
        let transport = ProfileAccess(context).transport()
        let discovered = try await TerminationSignals.startWatching().run {
            try await ProviderDiscovery.discoverDocument(issuer: issuer, transport: transport)
        }
        context.console.outLine(JSONOutput.text(.object(discovered.validatedDocument), console: context.console))
        return 0
    }
}
