import Foundation

/// One input to the live engine, as the journal keeps it: everything that
/// changes the engine's state goes through one of these, written before the
/// engine sees it. The engine is a pure deterministic value, so replaying
/// the inputs in order, each after the same number of engine steps and at
/// the same engine time, rebuilds its state exactly.
public enum JournalInput: Codable, Sendable, Equatable {
    /// `bgx ctl install`: the bundle's path and its Info.plist as it was read.
    case install(path: String, infoPlist: Data)
    /// A `bgx ctl` verb that changes state (launch, home, push, device …).
    case control(verb: String, args: [String])
    /// An app's API call (`beginBackgroundTask`, `submitTask` …).
    case call(app: String, name: String, args: [String: String])
    /// An app acknowledged a callback: it returned on this queue (`main` or `background`).
    case returned(app: String, queue: String)
    /// An app's resident size changed by this many bytes (jetsam's input).
    case resident(app: String, bytes: Int64)
    /// An app's processes used this much CPU time, in engine nanoseconds (the CPU monitor's input).
    case busy(app: String, nanoseconds: Int64)
    /// The app's process ended without the engine asking: it exited, could not
    /// start, or was lost with a daemon that died.
    case exited(app: String, detail: String)
    /// An attempt at a background transfer ended (`finished`, `retry` or
    /// `failed`), as the host that moved its bytes saw it.
    case transfer(app: String, task: Int32, outcome: String, detail: String)

    /// The column a person filters the journal by.
    public var kind: String {
        switch self {
        case .install: "install"
        case .control: "control"
        case .call: "call"
        case .returned: "returned"
        case .resident: "resident"
        case .busy: "busy"
        case .exited: "exited"
        case .transfer: "transfer"
        }
    }

    public var app: String? {
        switch self {
        case .install, .control: nil
        case let .call(app, _, _), let .returned(app, _), let .resident(app, _), let .busy(app, _), let .exited(app, _),
             let .transfer(app, _, _, _): app
        }
    }
}

/// A journal entry: the input and where in the engine's life it arrived.
public struct JournalEntry: Codable, Sendable, Equatable {
    /// Position in the journal (1, 2, …), given by the store.
    public var seq: Int64
    /// How many engine steps had run when the input arrived.
    public var steps: Int64
    /// The engine's now when it arrived (nanoseconds of engine time).
    public var clock: Int64
    /// The trace file's length before the input's effects were written.
    public var traceOffset: Int64
    /// The monotonic clock and the wall clock at that moment (to carry the
    /// engine's time across a restart: the same boot, or a reboot).
    public var monotonic: Int64
    public var wall: Double
    public var input: JournalInput

    public init(seq: Int64 = 0, steps: Int64, clock: Int64, traceOffset: Int64, monotonic: Int64, wall: Double,
                input: JournalInput) {
        self.seq = seq
        self.steps = steps
        self.clock = clock
        self.traceOffset = traceOffset
        self.monotonic = monotonic
        self.wall = wall
        self.input = input
    }
}
