import BGXCore
import Foundation
import Glibc

/// `bgx ctl`'s side of the protocol: one verb, its reply; or the trace.
public final class ControlClient {
    public let connection: LiveConnection
    var nextSeq = 1
    /// How long to wait for the daemon's each answer (nanoseconds); nil: for ever.
    let timeout: Int64?

    /// `timeout`: seconds to wait for each answer of the daemon before giving
    /// up with a message (a stopped or stuck daemon), nil to wait for ever.
    public init(socket path: String, timeout: Double? = nil) throws {
        self.timeout = timeout.map { Int64($0 * 1e9) }
        do {
            connection = try LiveConnection(socket: path, timeout: self.timeout)
            try connection.send(LiveMessage(type: "hello", role: "ctl"))
        } catch let error as SystemError where error.code == EAGAIN || error.code == EWOULDBLOCK {
            throw Self.unanswered(self.timeout)
        }
        guard let welcome = try connection.receive(until: deadline) else {
            throw connection.peerClosed ? LiveError("the daemon closed this ctl connection before its welcome") : Self.unanswered(self.timeout)
        }
        guard welcome.type == "welcome", welcome.ok == true else {
            throw LiveError("the daemon refused this ctl connection" + (welcome.text.map { ": \($0)" } ?? ""))
        }
    }

    var deadline: Int64? { timeout.map { MonotonicClock.now() + $0 } }

    static func unanswered(_ timeout: Int64?) -> LiveError {
        LiveError("the daemon did not answer within \(Time.describe(timeout ?? 0)) (is it stopped, or stuck?); --timeout waits longer")
    }

    /// Sends a verb; the reply (`ok`, `text`).
    public func send(_ verb: String, _ args: [String]) throws -> LiveMessage {
        let seq = nextSeq
        nextSeq += 1
        var named: [String: String] = [:]
        for (i, a) in args.enumerated() { named["\(i)"] = a }
        try connection.send(LiveMessage(type: "ctl", seq: seq, name: verb, args: named))
        let deadline = self.deadline
        while let m = try connection.receive(until: deadline) {
            if m.type == "reply", m.seq == seq { return m }
        }
        throw connection.peerClosed ? LiveError("the daemon closed the connection") : Self.unanswered(timeout)
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
