import Foundation
import Glibc

/// A callback from the system, as the app receives it.
public struct LiveCallback: Sendable {
    public var name: String
    public var args: [String: String]
}

/// The app's side of the live protocol: the daemon started this process
/// (`BGX_SOCKET`, `BGX_BUNDLE_IDENTIFIER` in its environment); the client
/// says hello, then runs the callbacks the system sends, acknowledging
/// each when its handler returns — the acknowledgement is what the
/// system's watchdogs wait for. One thread: calls made from a handler wait
/// for their reply, holding back callbacks that arrive meanwhile.
public final class LiveClient {
    let connection: LiveConnection
    public let bundleIdentifier: String
    var nextSeq = 1
    var held: [LiveMessage] = []
    var expirationHandlers: [Int: () -> Void] = [:]
    var launchHandlers: [String: (String) -> Void] = [:]
    /// Every callback, after the client's own bookkeeping (launch and expiration handlers).
    public var onCallback: (LiveCallback) -> Void = { _ in }

    public struct Refused: Error, CustomStringConvertible {
        public var description: String
    }

    public init(socket: String? = nil, bundleIdentifier: String? = nil) throws {
        let env = ProcessInfo.processInfo.environment
        guard let path = socket ?? env["BGX_SOCKET"], let bundle = bundleIdentifier ?? env["BGX_BUNDLE_IDENTIFIER"] else {
            throw Refused(description: "not started by bgx daemon (no BGX_SOCKET / BGX_BUNDLE_IDENTIFIER)")
        }
        self.bundleIdentifier = bundle
        connection = try LiveConnection(socket: path)
        try connection.send(LiveMessage(type: "hello", role: "app", app: bundle))
        guard let welcome = try connection.receive(), welcome.type == "welcome" else {
            throw Refused(description: "the daemon closed the connection")
        }
        guard welcome.ok == true else { throw Refused(description: welcome.text ?? "refused") }
    }

    /// A call into the system; its reply.
    @discardableResult
    public func call(_ name: String, _ args: [String: String] = [:]) throws -> LiveMessage {
        let seq = nextSeq
        nextSeq += 1
        try connection.send(LiveMessage(type: "call", seq: seq, name: name, args: args))
        while let m = try connection.receive() {
            if m.type == "reply", m.seq == seq { return m }
            held.append(m)
        }
        throw Refused(description: "the daemon closed the connection")
    }

    // MARK: UIApplication and BGTaskScheduler, by their names

    /// `beginBackgroundTask(withName:expirationHandler:)`: the id, or 0 (`.invalid`).
    public func beginBackgroundTask(withName name: String?, expirationHandler: (() -> Void)? = nil) throws -> Int {
        let reply = try call("beginBackgroundTask", name.map { ["name": $0] } ?? [:])
        let id = reply.args?["id"].flatMap(Int.init) ?? 0
        if id != 0, let expirationHandler { expirationHandlers[id] = expirationHandler }
        return id
    }

    public func endBackgroundTask(_ id: Int) throws {
        expirationHandlers[id] = nil
        try call("endBackgroundTask", ["id": "\(id)"])
    }

    /// `BGTaskScheduler.register(forTaskWithIdentifier:using:launchHandler:)`.
    @discardableResult
    public func register(forTaskWithIdentifier identifier: String, launchHandler: @escaping (String) -> Void) throws -> Bool {
        let ok = try call("registerTask", ["identifier": identifier]).ok == true
        if ok { launchHandlers[identifier] = launchHandler }
        return ok
    }

    /// `BGTaskScheduler.submit(_:)`; throws the scheduler's error.
    public func submit(identifier: String, type: String = "appRefresh", earliestBeginIn seconds: Double? = nil) throws {
        var args = ["identifier": identifier, "type": type]
        if let seconds { args["earliestBegin"] = "\(seconds)" }
        let reply = try call("submitTask", args)
        guard reply.ok == true else { throw Refused(description: reply.text ?? "submit refused") }
    }

    /// `BGTask.setTaskCompleted(success:)`.
    public func setTaskCompleted(identifier: String, success: Bool) throws {
        try call("setTaskCompleted", ["identifier": identifier, "success": "\(success)"])
    }

    // MARK: Running

    /// Runs callbacks until the daemon closes the connection.
    public func run() throws {
        while let m = try nextMessage() { try handle(m) }
    }

    /// The next message from the daemon (those held back during a call first);
    /// nil when `deadline` (monotonic nanoseconds) passed or the daemon closed
    /// the connection (`isClosed`). For hosts that run callbacks themselves.
    public func receive(until deadline: Int64?) throws -> LiveMessage? {
        if !held.isEmpty { return held.removeFirst() }
        return try connection.receive(until: deadline)
    }

    public var isClosed: Bool { connection.peerClosed }

    /// The callback's handler has returned: the watchdog waiting for it stands down.
    public func acknowledge(_ callback: LiveMessage) throws {
        try connection.send(LiveMessage(type: "ack", seq: callback.seq))
    }

    func nextMessage() throws -> LiveMessage? {
        if !held.isEmpty { return held.removeFirst() }
        return try connection.receive()
    }

    func handle(_ m: LiveMessage) throws {
        guard m.type == "callback", let name = m.name else { return }
        let args = m.args ?? [:]
        switch name {
        case "backgroundTaskExpired":
            if let id = args["id"].flatMap(Int.init), let handler = expirationHandlers.removeValue(forKey: id) { handler() }
        case "bgTask":
            if let identifier = args["identifier"] { launchHandlers[identifier]?(identifier) }
        default: break
        }
        onCallback(LiveCallback(name: name, args: args))
        try connection.send(LiveMessage(type: "ack", seq: m.seq))
    }
}
