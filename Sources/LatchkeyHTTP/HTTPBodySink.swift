/// Where a streamed response body goes (`HTTPTransport.send(_:bodySink:)`), so a large download
/// never sits in memory whole. The transport calls `write` with each decoded piece, in order, on
/// its I/O thread, while the response parser still enforces the framing and every limit: a body
/// that breaks them fails the exchange after the pieces already written, never silently short.
public protocol HTTPBodySink: Sendable {
    /// Takes the next piece of the body. An error thrown here ends the exchange, and `send`
    /// rethrows it as it is (a full disk is the caller's failure, not the network's).
    func write(_ bytes: ArraySlice<UInt8>) throws
}

/// Chooses where a response's body goes once its status line and headers have arrived (the
/// response passed in has an empty body), before any body byte: a sink takes the body, and nil
/// keeps it buffered in the returned response, bounded as `send` bounds it. This is where a caller
/// that may retry (a 401 to refresh on, a redirect to follow) keeps that response off its output.
public typealias HTTPBodySinkChooser = @Sendable (_ head: HTTPResponse) throws -> (any HTTPBodySink)?
