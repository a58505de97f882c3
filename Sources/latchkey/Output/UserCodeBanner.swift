/// The device flow's user code shown so it is easy to read and type: framed, bold when colours
/// are allowed, and with look-alike characters left exactly as the server sent them.
enum UserCodeBanner {
    /// The framed code, indented, ending in a newline.
    static func render(_ code: String, console: Console) -> String {
        let spaced = code
        let width = spaced.count + 4
        let top = "    ┏" + String(repeating: "━", count: width) + "┓\n"
        let middle = "    ┃  " + console.bold(spaced) + "  ┃\n"
        let bottom = "    ┗" + String(repeating: "━", count: width) + "┛\n"
        return top + middle + bottom
    }
}
