/// An incremental, strict HTTP/1.1 response parser (RFC 9112). Pure: it sees only bytes, so it is
/// fuzzed on its own (Fuzz/FuzzHTTPResponse) and shared by the client, the proxy CONNECT and tests.
///
/// Feed bytes with `feed(_:)` until it returns true, or call `finish()` at end of stream. Every malformed
/// input or exceeded limit throws `HTTPError.protocolViolation`; memory is bounded by `Limits`.
public struct HTTPResponseParser: Sendable {
    /// Size limits; a response exceeding any of them is refused, not truncated.
    public struct Limits: Sendable, Equatable {
        /// Status line plus all header lines (and again for trailers), in bytes.
        public var maxHeaderBytes: Int
        /// Number of header fields (and separately of trailer fields).
        public var maxHeaderCount: Int
        /// Any single line (status, header, chunk size, trailer).
        public var maxLineLength: Int
        /// Decoded body size.
        public var maxBodyBytes: Int

        /// Defaults: 32 KiB header block, 100 headers, 8 KiB lines, 1 MiB body.
        public init(
            maxHeaderBytes: Int = 32 * 1024, maxHeaderCount: Int = 100,
            maxLineLength: Int = 8 * 1024, maxBodyBytes: Int = 1024 * 1024
        ) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxLineLength = maxLineLength
            self.maxBodyBytes = maxBodyBytes
        }
    }

    /// A complete response.
    public struct Message: Sendable {
        /// Status code (100–599, never 1xx: interim responses are skipped).
        public var status: Int
        /// Reason phrase as sent (may be empty).
        public var reason: String
        /// Header fields in order, names as received.
        public var headers: [(name: String, value: String)]
        /// Trailer fields of a chunked body.
        public var trailers: [(name: String, value: String)]
        /// Decoded body.
        public var body: [UInt8]
    }

    private enum State: Sendable {
        case statusLine
        case headers
        case fixedBody(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    /// The limits in force.
    public let limits: Limits
    private let requestMethod: String
    private var state: State = .statusLine
    private var buffer: [UInt8] = []
    private var start = 0  // first unconsumed byte of `buffer`
    private var headerBytes = 0
    private var interimResponses = 0
    private var status = 0
    private var reason = ""
    private var headers: [(name: String, value: String)] = []
    private var trailers: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private var bodyCount = 0  // decoded body bytes so far, taken or not (the limit counts them all)

    /// A parser for the response to `requestMethod` (`HEAD` and a successful `CONNECT` have no body).
    public init(limits: Limits = Limits(), requestMethod: String = "GET") {
        self.limits = limits
        self.requestMethod = requestMethod  // case-sensitive (RFC 9110 §9.1): `head` is not HEAD
    }

    /// True once a whole response has been parsed.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// True once the final status line and headers are parsed (interim 1xx responses skipped); the
    /// body may still be arriving. From here on `status` and `headers` are final.
    public var hasHead: Bool {
        switch state {
        case .statusLine, .headers: return false
        default: return true
        }
    }

    /// The final status code and header fields, once `hasHead`.
    public var head: (status: Int, headers: [(name: String, value: String)])? {
        hasHead ? (status, headers) : nil
    }

    /// Takes the body bytes decoded since the last call, for a caller that streams the body on
    /// instead of keeping it (`message` then holds only what was not taken). Framing and
    /// `maxBodyBytes` still apply to the whole body, taken or not.
    public mutating func takeBody() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &body)
        return taken
    }

    /// The parsed response, once complete.
    public var message: Message? {
        guard isComplete else { return nil }
        return Message(status: status, reason: reason, headers: headers, trailers: trailers, body: body)
    }

    /// Consumes `bytes`; returns true when the response is complete (later bytes are ignored).
    @discardableResult
    public mutating func feed<C: Collection>(_ bytes: C) throws(HTTPError) -> Bool where C.Element == UInt8 {
        if isComplete { return true }
        buffer.append(contentsOf: bytes)
        try advance()
        compact()
        return isComplete
    }

    /// Signals end of stream: completes a close-delimited body, or throws because the response was cut short.
    public mutating func finish() throws(HTTPError) {
        switch state {
        case .done: return
        case .untilClose: state = .done
        case .statusLine where buffer.count == start && headers.isEmpty && status == 0:
            throw .protocolViolation(reason: "empty response")
        default:
            throw .protocolViolation(reason: "truncated response")
        }
    }

    // MARK: - State machine

    private mutating func advance() throws(HTTPError) {
        while true {
            switch state {
            case .done:
                return
            case .statusLine:
                guard let line = try nextLine(countsTowardHeaders: true) else { return }
                try parseStatusLine(line)
                state = .headers
            case .headers:
                guard let line = try nextLine(countsTowardHeaders: true) else { return }
                if line.isEmpty {
                    try endOfHeaders()
                } else {
                    guard headers.count < limits.maxHeaderCount else {
                        throw .protocolViolation(reason: "more than \(limits.maxHeaderCount) header fields")
                    }
                    headers.append(try parseField(line))
                }
            case .fixedBody(let remaining):
                let available = buffer.count - start
                if available == 0 { return }
                let take = min(available, remaining)
                appendBody(buffer[start..<(start + take)])
                start += take
                state = remaining - take == 0 ? .done : .fixedBody(remaining: remaining - take)
            case .untilClose:
                let available = buffer.count - start
                if available == 0 { return }
                guard bodyCount + available <= limits.maxBodyBytes else {
                    throw .protocolViolation(reason: "body larger than \(limits.maxBodyBytes) bytes")
                }
                appendBody(buffer[start...])
                start = buffer.count
                return
            case .chunkSize:
                guard let line = try nextLine(countsTowardHeaders: false) else { return }
                let size = try parseChunkSize(line)
                if size == 0 {
                    headerBytes = 0
                    state = .trailers
                } else {
                    guard bodyCount + size <= limits.maxBodyBytes else {
                        throw .protocolViolation(reason: "body larger than \(limits.maxBodyBytes) bytes")
                    }
                    state = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let available = buffer.count - start
                if available == 0 { return }
                let take = min(available, remaining)
                appendBody(buffer[start..<(start + take)])
                start += take
                state = remaining - take == 0 ? .chunkDataEnd : .chunkData(remaining: remaining - take)
            case .chunkDataEnd:
                guard buffer.count - start >= 2 else { return }
                guard buffer[start] == 0x0D, buffer[start + 1] == 0x0A else {
                    throw .protocolViolation(reason: "chunk data not followed by CRLF")
                }
                start += 2
                state = .chunkSize
            case .trailers:
                guard let line = try nextLine(countsTowardHeaders: true) else { return }
                if line.isEmpty {
                    state = .done
                } else {
                    guard trailers.count < limits.maxHeaderCount else {
                        throw .protocolViolation(reason: "more than \(limits.maxHeaderCount) trailer fields")
                    }
                    trailers.append(try parseField(line))
                }
            }
        }
    }

    private mutating func appendBody(_ bytes: ArraySlice<UInt8>) {
        body.append(contentsOf: bytes)
        bodyCount += bytes.count
    }

    /// The next CRLF-terminated line without its CRLF, or nil if more bytes are needed.
    private mutating func nextLine(countsTowardHeaders: Bool) throws(HTTPError) -> ArraySlice<UInt8>? {
        var i = start
        let end = buffer.count
        while i < end, buffer[i] != 0x0A { i += 1 }
        if i == end {
            // No LF yet: refuse a line that is already too long instead of buffering without bound.
            if end - start > limits.maxLineLength {
                throw .protocolViolation(reason: "line longer than \(limits.maxLineLength) bytes")
            }
            if countsTowardHeaders, headerBytes + (end - start) > limits.maxHeaderBytes {
                throw .protocolViolation(reason: "header block larger than \(limits.maxHeaderBytes) bytes")
            }
            return nil
        }
        let lineLength = i - start + 1
        guard lineLength - 2 <= limits.maxLineLength else {
            throw .protocolViolation(reason: "line longer than \(limits.maxLineLength) bytes")
        }
        guard i > start, buffer[i - 1] == 0x0D else {
            throw .protocolViolation(reason: "line not terminated by CRLF")
        }
        if countsTowardHeaders {
            headerBytes += lineLength
            guard headerBytes <= limits.maxHeaderBytes else {
                throw .protocolViolation(reason: "header block larger than \(limits.maxHeaderBytes) bytes")
            }
        }
        let line = buffer[start..<(i - 1)]
        start = i + 1
        if line.contains(0x0D) { throw .protocolViolation(reason: "bare CR in line") }
        return line
    }

    private mutating func parseStatusLine(_ line: ArraySlice<UInt8>) throws(HTTPError) {
        // "HTTP/1.1 200 OK": the version, one space, three digits, then a space and optional reason.
        let bytes = Array(line)
        let prefix = Array("HTTP/1.".utf8)
        guard bytes.count >= 12, Array(bytes[0..<7]) == prefix,
            bytes[7] == UInt8(ascii: "0") || bytes[7] == UInt8(ascii: "1"),
            bytes[8] == 0x20, bytes.count == 12 || bytes[12] == 0x20
        else {
            throw .protocolViolation(reason: "malformed status line")
        }
        var code = 0
        for b in bytes[9..<12] {
            guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else {
                throw .protocolViolation(reason: "malformed status code")
            }
            code = code * 10 + Int(b - UInt8(ascii: "0"))
        }
        guard (100...599).contains(code) else { throw .protocolViolation(reason: "status code \(code) out of range") }
        let reasonBytes = bytes.count > 13 ? Array(bytes[13...]) : []
        guard reasonBytes.allSatisfy(CharacterClass.isFieldText) else {
            throw .protocolViolation(reason: "control character in reason phrase")
        }
        status = code
        reason = String(decoding: reasonBytes, as: UTF8.self)
    }

    private func parseField(_ line: ArraySlice<UInt8>) throws(HTTPError) -> (name: String, value: String) {
        guard let first = line.first, !CharacterClass.isOptionalWhitespace(first) else {
            throw .protocolViolation(reason: "obsolete line folding in header")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else {
            throw .protocolViolation(reason: "header line without a name")
        }
        let name = line[line.startIndex..<colon]
        guard name.allSatisfy(Self.isTokenChar) else {
            throw .protocolViolation(reason: "invalid character in header name")
        }
        var value = line[line.index(after: colon)...]
        while let f = value.first, CharacterClass.isOptionalWhitespace(f) { value = value.dropFirst() }
        while let l = value.last, CharacterClass.isOptionalWhitespace(l) { value = value.dropLast() }
        guard value.allSatisfy(CharacterClass.isFieldText) else {
            throw .protocolViolation(reason: "control character in header value")
        }
        return (String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    private mutating func endOfHeaders() throws(HTTPError) {
        if (100...199).contains(status) {
            // Interim responses (100 Continue, 103 Early Hints) precede the real one; 101 is never asked for.
            guard status != 101 else { throw .protocolViolation(reason: "unexpected 101 Switching Protocols") }
            interimResponses += 1
            guard interimResponses <= 8 else { throw .protocolViolation(reason: "too many interim responses") }
            headers = []
            status = 0
            state = .statusLine
            return
        }
        let te = values(of: "transfer-encoding")
        let cl = values(of: "content-length")
        if requestMethod == "HEAD" || status == 204 || status == 304
            || (requestMethod == "CONNECT" && (200...299).contains(status))
        {
            state = .done
            return
        }
        if !te.isEmpty {
            // Both framings at once is the classic request-smuggling ambiguity: refuse it.
            guard cl.isEmpty else { throw .protocolViolation(reason: "both Transfer-Encoding and Content-Length") }
            let codings = te.flatMap { $0.split(separator: ",") }
                .map { $0.lowercased().filter { $0 != " " && $0 != "\t" } }
            guard codings == ["chunked"] else {
                throw .protocolViolation(reason: "unsupported Transfer-Encoding \(te.joined(separator: ", "))")
            }
            headerBytes = 0
            state = .chunkSize
            return
        }
        if !cl.isEmpty {
            // Repeated or list-valued Content-Length is only acceptable when every value agrees.
            let parts = cl.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
                .map { String($0.filter { $0 != " " && $0 != "\t" }) }
            guard let firstPart = parts.first, parts.allSatisfy({ $0 == firstPart }) else {
                throw .protocolViolation(reason: "conflicting Content-Length values")
            }
            guard !firstPart.isEmpty, firstPart.utf8.count <= 15,
                firstPart.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                let length = Int(firstPart)
            else { throw .protocolViolation(reason: "invalid Content-Length") }
            guard length <= limits.maxBodyBytes else {
                throw .protocolViolation(reason: "body larger than \(limits.maxBodyBytes) bytes (Content-Length \(length))")
            }
            state = length == 0 ? .done : .fixedBody(remaining: length)
            return
        }
        state = .untilClose
    }

    private func values(of lowercasedName: String) -> [String] {
        headers.filter { $0.name.lowercased() == lowercasedName }.map(\.value)
    }

    private func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPError) -> Int {
        // chunk-size [ chunk-ext ]; extensions are ignored, but the size must be plain hex.
        var size = 0
        var digits = 0
        var i = line.startIndex
        while i < line.endIndex, let v = FormURLEncoding.hexValue(line[i]) {
            size = size * 16 + Int(v)
            digits += 1
            guard digits <= 8 else { throw .protocolViolation(reason: "chunk size too large") }
            i += 1
        }
        guard digits > 0 else { throw .protocolViolation(reason: "malformed chunk size") }
        var rest = line[i...]
        while let f = rest.first, CharacterClass.isOptionalWhitespace(f) { rest = rest.dropFirst() }
        guard rest.isEmpty || rest.first == UInt8(ascii: ";") else {
            throw .protocolViolation(reason: "malformed chunk size")
        }
        guard rest.allSatisfy(CharacterClass.isFieldText) else {
            throw .protocolViolation(reason: "control character in chunk extension")
        }
        return size
    }

    private mutating func compact() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
            start = 0
        } else if start > 16 * 1024 && start > buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
    }

    private static func isTokenChar(_ b: UInt8) -> Bool { HeaderName.isTokenCharacter(b) }
}
