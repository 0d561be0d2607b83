/// What one client of the daemon's socket may take of it, so that a client
/// that floods it, sends oversized or truncated frames, or holds connections
/// open never starves the other apps nor grows the daemon without bound.
/// Each limit, when hit, closes or refuses that connection with its reason
/// (logged, and a `connection.refuse` or `connection.close` trace line).
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once, of every kind (each is a descriptor).
    public var connections = 512
    /// Connections that have not yet said hello, from users not on the `ctl`
    /// allow list and processes the daemon did not launch (so strangers cannot
    /// take the slots `bgx ctl` and the apps need).
    public var unauthenticated = 64
    /// Connections that have not yet said hello from one user (SO_PEERCRED's
    /// uid), the `ctl` allow list's users excepted: one user's flood fills its
    /// own share, not the others'.
    public var unauthenticatedPerUser = 8
    /// Connections from one process (SO_PEERCRED's pid): an app needs one,
    /// `bgx ctl` one per command and one to follow the trace.
    public var perProcess = 16
    /// Connections from one user (SO_PEERCRED's uid). Any local user may
    /// connect (apps run as their own users); this keeps room for the others.
    public var perUser = 448
    /// `bgx ctl` connections, followers of the trace included.
    public var ctl = 32
    /// A connection that has not said hello this long after it connected is
    /// closed (nanoseconds of the monotonic clock: a host concern, not the engine's time).
    public var helloDeadline: Int64 = 5_000_000_000
    /// A frame begun must be whole this long after the last whole frame (or
    /// the connection's start): a peer that sends half a frame and stalls is cut off.
    public var frameDeadline: Int64 = 10_000_000_000
    /// Frames handled from one connection in one turn of the loop; the rest
    /// wait (and nothing more is read from it) until every other connection
    /// has had its turn, so one connection's backlog cannot delay another's frames.
    public var framesPerTurn = 16

    public init() {}

    /// Bytes one connection's unread frames can hold: at most one frame's
    /// header and payload, plus one read — nothing is read from a connection
    /// that has a whole frame waiting.
    public static let inboxBound = Frame.headerSize + Frame.maximumPayload + LiveDaemon.readSize
}
