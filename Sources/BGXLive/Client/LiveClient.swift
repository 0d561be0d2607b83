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
/// system's watchdogs wait for. By default one thread: calls made from a
/// handler wait for their reply, holding back callbacks that arrive
/// meanwhile. After `startReading`, a reader thread owns the socket's
/// reading and calls may come from any thread (see there).
public final class LiveClient {
    let connection: LiveConnection
    public let bundleIdentifier: String
    var nextSeq = 1
    var held: [LiveMessage] = []
    /// Frames go out whole and one at a time, whichever thread sends them.
    let writing = NSLock()
    /// The reader thread's state: the calls waiting for their replies.
    let replies = NSCondition()
    var reader: Thread?
    var waiting: [Int: LiveMessage?] = [:]
    var readerEnded = false
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
        if reader != nil { return try callThroughReader(name, args) }
        let seq = nextSeq
        nextSeq += 1
        try send(LiveMessage(type: "call", seq: seq, name: name, args: args))
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
        try send(LiveMessage(type: "ack", seq: callback.seq))
    }

    func send(_ message: LiveMessage) throws {
        writing.lock()
        defer { writing.unlock() }
        try connection.send(message)
    }

    // MARK: Calls from any thread

    /// Hands the socket's reading to a thread of its own, for a process whose
    /// main thread runs a run loop (GCD's main queue, timers) instead of
    /// waiting on the socket: it blocks in `recv`, never polls. A reply
    /// wakes the call waiting for it, on whatever thread that call was
    /// made; every other message (callbacks, held-back ones first) goes to
    /// `deliver`, on the reader thread, in order; `ended` runs once when the
    /// daemon closes the connection. From then on `call` is safe from any
    /// thread: frames are written whole under one lock.
    public func startReading(deliver: @escaping (LiveMessage) -> Void, ended: @escaping () -> Void) {
        precondition(reader == nil, "the client already has a reader")
        for m in held { deliver(m) }
        held.removeAll()
        let thread = Thread { [self] in
            while true {
                guard let m = try? connection.receive() else { break }
                if m.type == "reply", let seq = m.seq {
                    replies.lock()
                    if waiting.keys.contains(seq) { waiting[seq] = m }
                    replies.broadcast()
                    replies.unlock()
                } else {
                    deliver(m)
                }
            }
            replies.lock()
            readerEnded = true
            replies.broadcast()
            replies.unlock()
            ended()
        }
        thread.name = "bgx live reader"
        reader = thread
        thread.start()
    }

    func callThroughReader(_ name: String, _ args: [String: String]) throws -> LiveMessage {
        replies.lock()
        let seq = nextSeq
        nextSeq += 1
        waiting[seq] = .some(nil)
        replies.unlock()
        do { try send(LiveMessage(type: "call", seq: seq, name: name, args: args)) } catch {
            replies.lock()
            waiting[seq] = nil
            replies.unlock()
            throw error
        }
        replies.lock()
        defer { replies.unlock() }
        while true {
            if case let reply?? = waiting[seq] {
                waiting[seq] = nil
                return reply
            }
            if readerEnded {
                waiting[seq] = nil
                throw Refused(description: "the daemon closed the connection")
            }
            replies.wait()
        }
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
        try send(LiveMessage(type: "ack", seq: m.seq))
    }
}
