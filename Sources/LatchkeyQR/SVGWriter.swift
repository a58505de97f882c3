/// Writes a QR code as an SVG image: a white square and one black path made of a rectangle per
/// horizontal run of dark modules, in module units (so the file stays small at any size) with
/// `shape-rendering="crispEdges"` so that renderers do not blur module edges.
public enum SVGWriter {
    /// The SVG document as UTF-8: `scale` pixels per module (at least 1) for its width and
    /// height, `quietZone` light modules on each side.
    public static func svg(_ code: QRCode, scale: Int = 4, quietZone: Int = 4) -> [UInt8] {
        let quietZone = max(quietZone, 0)
        let modules = code.size + 2 * quietZone
        let pixels = modules * max(scale, 1)
        var path = ""
        for y in 0..<code.size {
            var x = 0
            while x < code.size {
                guard code[x, y] else { x += 1; continue }
                var run = 1
                while x + run < code.size && code[x + run, y] { run += 1 }
                path += "M\(x + quietZone) \(y + quietZone)h\(run)v1h-\(run)z"
                x += run
            }
        }
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(modules) \(modules)" shape-rendering="crispEdges">
            <rect width="\(modules)" height="\(modules)" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>

            """
        return Array(document.utf8)
    }
}
