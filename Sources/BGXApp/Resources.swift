import BGXCore
import Foundation

/// A file lock (`flock` on a database or a shared-container file, what
/// SQLite and `NSFileCoordinator` take). rules §10: an app suspended while
/// holding one is killed (`lockHeldWhileSuspended`, 0xdead10cc) — release it
/// before the background time ends.
public final class FileLock {
    public let path: String
    let connection: SystemConnection
    public private(set) var isLocked = false

    public init(path: String) {
        self.path = path
        self.connection = Application.shared.connection
    }

    public func lock() {
        guard !isLocked else { return }
        isLocked = true
        connection.holdLock(path)
    }

    public func unlock() {
        guard isLocked else { return }
        isLocked = false
        connection.releaseLock(path)
    }
}

/// A socket an app opens, in Network.framework's shape (`NWListener`,
/// `NWConnection`, a Bonjour `NetService`): started, cancelled, and told of
/// its state. rules §10: listeners and Bonjour services are closed when the
/// app is suspended, connections may be torn down while it is; the app
/// hears of it (`stateUpdateHandler` with `.failed`) when it runs again.
public class NetworkSocket {
    public enum State: Sendable, Equatable {
        case setup, ready, cancelled
        /// Closed by the system; the reason says why.
        case failed(String)
    }

    public let name: String
    public let kind: SocketKind
    public private(set) var state = State.setup
    public var stateUpdateHandler: ((State) -> Void)?
    let connection: SystemConnection

    init(name: String, kind: SocketKind) {
        self.name = name
        self.kind = kind
        self.connection = Application.shared.connection
    }

    public func start() {
        connection.openSocket(self)
        update(.ready)
    }

    public func cancel() {
        connection.closeSocket(self)
        update(.cancelled)
    }

    /// The system closed it (called by the host that runs the app).
    public func systemClosed(reason: String) { update(.failed(reason)) }

    func update(_ new: State) {
        state = new
        stateUpdateHandler?(new)
    }
}

/// `NWListener`: accepts connections on a port; closed on suspension.
public final class NWListener: NetworkSocket {
    public init(name: String) { super.init(name: name, kind: .listener) }
}

/// A published Bonjour service (`NetService.publish()`); closed on suspension.
public final class BonjourService: NetworkSocket {
    public init(name: String) { super.init(name: name, kind: .bonjour) }
}

/// `NWConnection`: may be torn down while the app is suspended.
public final class NWConnection: NetworkSocket {
    public init(name: String) { super.init(name: name, kind: .connection) }
}
