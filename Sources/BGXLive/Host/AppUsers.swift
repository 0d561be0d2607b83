import Glibc

/// Which user each app's processes run as. Never root: an app that could act
/// as the daemon's user could write any app's cgroup, signal the daemon, read
/// the state and speak as `bgx ctl`.
public enum AppUsers: Sendable, Equatable {
    /// Each app its own user and group, as Android gives each app a uid:
    /// `base` + the app's number (its place in the install order, which the
    /// journal keeps, so an app keeps its user across restarts).
    case perApp(base: uid_t)
    /// Every app as this one user and group (`--app-user UID[:GID]`): apps
    /// are kept from the daemon, not from each other.
    case shared(uid: uid_t, gid: gid_t)

    /// Above every range Debian and systemd hand out to people and services
    /// (people from 1000, systemd's dynamic users 61184–65519), below
    /// systemd-nspawn's container ranges (524288 on).
    public static let defaultBase: uid_t = 200_000
    /// Apps one daemon can give users to, from `base` on.
    public static let perAppRange: uid_t = 65_536

    /// The user and group for the app with this number, or why there is none.
    public func ids(forAppNumber number: Int32) -> Result<(uid: uid_t, gid: gid_t), AppUserError> {
        switch self {
        case let .perApp(base):
            guard number >= 0, uid_t(number) < Self.perAppRange else {
                return .failure(AppUserError(description: "app number \(number) is past the \(Self.perAppRange) users from \(base)"))
            }
            let id = base + uid_t(number)
            return .success((id, gid_t(id)))
        case let .shared(uid, gid):
            return .success((uid, gid))
        }
    }

    /// Parses `--app-user`: `per-app` (the default base), `per-app:BASE`, or `UID[:GID]`.
    public static func parse(_ text: String) -> AppUsers? {
        if text == "per-app" { return .perApp(base: defaultBase) }
        if text.hasPrefix("per-app:") {
            guard let base = uid_t(text.dropFirst("per-app:".count)), base > 0, base <= UInt32.max - perAppRange else { return nil }
            return .perApp(base: base)
        }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let uid = uid_t(parts[0]), uid > 0 else { return nil }
        if parts.count == 1 { return .shared(uid: uid, gid: gid_t(uid)) }
        guard let gid = gid_t(parts[1]), gid > 0 else { return nil }
        return .shared(uid: uid, gid: gid)
    }
}

public struct AppUserError: Error, CustomStringConvertible {
    public var description: String
}
