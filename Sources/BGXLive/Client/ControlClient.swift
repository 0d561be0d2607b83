import Foundation

/// `bgx ctl`'s side of the protocol: one verb, its reply; or the trace.
public final class ControlClient {
    public let connection: LiveConnection
    var nextSeq = 1

    public init(socket path: String) throws {
        connection = try LiveConnection(socket: path)
        try connection.send(LiveMessage(type: "hello", role: "ctl"))
        guard let welcome = try connection.receive(), welcome.type == "welcome", welcome.ok == true else {
            throw LiveError("the daemon refused this ctl connection")
        }
    }

    /// Sends a verb; the reply (`ok`, `text`).
    public func send(_ verb: String, _ args: [String]) throws -> LiveMessage {
        let seq = nextSeq
        nextSeq += 1
        var named: [String: String] = [:]
        for (i, a) in args.enumerated() { named["\(i)"] = a }
        try connection.send(LiveMessage(type: "ctl", seq: seq, name: verb, args: named))
        while let m = try connection.receive() {
            if m.type == "reply", m.seq == seq { return m }
        }
        throw LiveError("the daemon closed the connection")
    }

    /// Asks for the trace and hands each line to `line` until the daemon says
    /// the end (or, following, until it closes or `line` returns false).
    public func trace(follow: Bool, until deadline: Int64? = nil, _ line: (String) -> Bool) throws {
        try connection.send(LiveMessage(type: "ctl", seq: nextSeq, name: "trace", args: follow ? ["0": "--follow"] : [:]))
        nextSeq += 1
        while let m = try connection.receive(until: deadline) {
            if m.type == "end" { return }
            if m.type == "trace", let text = m.text, !line(text) { return }
        }
    }
}
