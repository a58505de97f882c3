import Glibc
import LatchkeyJOSE

/// Reads and writes `<state-dir>/profiles/NAME.json` through the store's `PrivateFile`: atomic
/// writes with mode 0600 in folders made 0700; a file that is a symbolic link, owned by another
/// user, or accessible to group or others is refused, and so is a state or `profiles/` folder
/// that another user owns or group/others can write: the file decides where tokens are sent.
package struct ProfileStore: Sendable {
    /// The state directory.
    package let stateDirectory: String

    /// The store for profiles under `stateDirectory`.
    package init(stateDirectory: String) { self.stateDirectory = stateDirectory }

    /// `<state-dir>/profiles`.
    package var directory: String { stateDirectory + "/profiles" }

    /// `<state-dir>/profiles/NAME.json`.
    package func path(for profile: String) -> String { directory + "/" + profile + ".json" }

    /// The profile's settings, or nil when it has never been signed in.
    package func load(_ profile: String) throws(ProfileFileError) -> ProfileSettings? {
        let path = path(for: profile)
        guard let bytes = try readFile(path) else { return nil }
        let object: JSONObject
        do { object = try JSONParser().parseObject(bytes) } catch {
            throw .invalid(path: path, reason: error.description)
        }
        return try ProfileSettings(json: object, path: path)
    }

    /// Writes the profile's settings (atomically, mode 0600, through the store's `PrivateFile`).
    package func save(_ settings: ProfileSettings, profile: String) throws(ProfileFileError) {
        do {
            // The state folder first: `PrivateFile` creates missing parents with 0700 and checks each.
            try PrivateFile.write(
                Array((settings.json.prettyJSONText + "\n").utf8),
                directory: directory, fileName: profile + ".json")
        } catch {
            throw .storage(error)
        }
    }

    /// The names of every profile with a settings file, sorted.
    package func list() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(".json"), !name.hasPrefix(".") else { continue }
            names.append(String(name.dropLast(5)))
        }
        return names.sorted()
    }

    /// The state folder is checked before `profiles/` (which `PrivateFile.read` checks): the
    /// settings decide where tokens are sent, and whoever can write either folder can swap them.
    private func readFile(_ path: String) throws(ProfileFileError) -> [UInt8]? {
        do {
            guard try PrivateFile.checkFolder(stateDirectory) else { return nil }
            return try PrivateFile.read(path, limit: 65_536)
        } catch { throw .storage(error) }
    }
}
