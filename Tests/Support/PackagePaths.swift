import FoundationEssentials
import Glibc

/// Locates the package root, the sibling `shared/` folder and the test harness.
///
/// Tests find their data relative to the package root, never the working directory, because
/// `swift test` and CI may start them from anywhere.
public enum PackagePaths {
    /// The package root: the nearest ancestor of `filePath` holding `Package.swift`.
    /// Defaults to this file's own location (`<root>/Tests/Support/PackagePaths.swift`).
    public static func root(filePath: String = #filePath) -> String {
        var dir = parent(of: filePath)
        while dir != "/" && !dir.isEmpty {
            if access(dir + "/Package.swift", F_OK) == 0 { return dir }
            dir = parent(of: dir)
        }
        // Fall back to the fixed layout, so a missing Package.swift surfaces as "file not found" later.
        return parent(of: parent(of: parent(of: filePath)))
    }

    /// `<root>/../shared`, the project's shared specs and test vectors.
    public static func shared(filePath: String = #filePath) -> String {
        parent(of: root(filePath: filePath)) + "/shared"
    }

    /// `<root>/Tests/Harness`, where the IdP bring-up and the scripted server live.
    public static func harness(filePath: String = #filePath) -> String {
        root(filePath: filePath) + "/Tests/Harness"
    }

    /// The folder part of a path ("/a/b/c" → "/a/b"; "/a" → "/").
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }

    /// True when something exists at `path`.
    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }
}
