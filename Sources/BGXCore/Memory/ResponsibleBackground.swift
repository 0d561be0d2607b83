/// rules §10, the responsible-background rules [S]: no GPU in the background;
/// no file lock held into suspension (0xdead10cc); listening sockets and
/// Bonjour services close on suspension and connections may be torn down
/// while suspended; the app-switcher snapshot is taken once
/// `didEnterBackground` returns. And what a kill costs the person: changes
/// not yet saved are lost. The app's calls are in `MemoryCalls.swift`; the
/// checks at suspension and resume, and the snapshot, in `Engine/MemorySteps.swift`.

/// What kind of socket an app opened.
public enum SocketKind: String, Sendable, CaseIterable, Codable {
    /// A listening socket: closed when the app is suspended.
    case listener
    /// A published Bonjour service (`NetService`): closed when the app is suspended.
    case bonjour
    /// A connection: may be torn down while the app is suspended.
    case connection
}

struct OpenSocket: Sendable, Codable {
    var name: String
    var kind: SocketKind
}
