import Foundation

/// What a platform source saw: the person's or the device's state as the
/// machine reports it, for the daemon to give the engine as `bgx ctl` would.
public enum PlatformReport: Sendable, Equatable {
    /// A source came up, went away or is absent, and why (traced as `platform.source`).
    case source(String, live: Bool, detail: String)
    /// A device reading, as `bgx ctl device KEY=VALUE` says it (`charging=true`, `battery=40`, `network=wifi`).
    case device(String, setting: String)
    /// The screen was locked (true) or unlocked (false).
    case locked(String, Bool)
    /// The toplevel the compositor activated, by its app id; nil: none is.
    case front(String, appID: String?)
}

/// A source of the platform's truth the daemon's loop watches: a descriptor
/// `ppoll` waits on (-1: none) and/or a moment to be woken at. Each call
/// returns what the source saw since the last; it never blocks for long.
/// Only the daemon's one thread calls a source (hence `@unchecked Sendable` on each).
public protocol PlatformSource: AnyObject, Sendable {
    /// The descriptor to wait on for input, or -1.
    var descriptor: Int32 { get }
    /// The monotonic moment (ns) the source wants to be woken at, if any.
    var nextWake: Int64? { get }
    /// What `status` says of it, one line per source it speaks for.
    var statusLines: [String] { get }
    /// The first readings (and liveness), once, when the daemon is ready.
    func start() -> [PlatformReport]
    /// The descriptor is readable (or hung up).
    func readable() -> [PlatformReport]
    /// `nextWake` has come.
    func woken(now: Int64) -> [PlatformReport]
    /// The daemon stops.
    func close()
}
