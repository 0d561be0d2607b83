import BGXLive
import Glibc

/// Which app is in front, from a wlroots compositor (sway, phoc, labwc …):
/// the `zwlr_foreign_toplevel_manager_v1` protocol announces every toplevel
/// window with its app id and state, and `activated` is the one the person
/// is using. Spoken on the wire directly — the protocol is a few messages,
/// and a client library would be one more thing to build and install.
public final class ForeignToplevels: PlatformSource, @unchecked Sendable {
    static let managerInterface = "zwlr_foreign_toplevel_manager_v1"
    let fd: Int32
    let display: String
    var inbox: [UInt8] = []
    var reports: [PlatformReport] = []
    /// Object ids this client made: the display (1), its registry, the first sync, the manager.
    let registryID: UInt32 = 2, syncID: UInt32 = 3, managerID: UInt32 = 4
    var managerVersion: UInt32?
    var state = "connecting"
    var live = false
    struct Toplevel {
        var appID: String?
        var activated = false
        var pendingAppID: String?
        var pendingActivated: Bool?
        /// When it was last activated (a counter), so the newest activation wins if several say so.
        var activatedAt = 0
    }
    var toplevels: [UInt32: Toplevel] = [:]
    var activations = 0
    /// The app id last reported in front (`.some(nil)`: none).
    var reportedFront: String??
    /// A toplevel changed since the front was last worked out.
    var changed = false

    /// Connects to `display`: a socket path, or a name in `$XDG_RUNTIME_DIR`
    /// (nil: `$WAYLAND_DISPLAY`, else `wayland-0`).
    public init(display: String? = nil) throws {
        let name = display ?? getenv("WAYLAND_DISPLAY").map { String(cString: $0) } ?? "wayland-0"
        var path = name
        if !name.hasPrefix("/") {
            guard let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }) else {
                throw WaylandError("no XDG_RUNTIME_DIR to find the Wayland display \(name) in (give --wayland-display a path)")
            }
            path = runtime + "/" + name
        }
        self.display = path
        fd = try SocketAddress(path).connectStream(nonBlocking: true)
        send(WaylandMessage.request(1, 1, [.uint(registryID)]))   // wl_display.get_registry
        send(WaylandMessage.request(1, 0, [.uint(syncID)]))       // wl_display.sync: the globals are all in by its done
    }

    /// Not waited on once lost (a hung-up socket is always readable) or found without the protocol.
    public var descriptor: Int32 { state == "lost" || state == "absent" ? -1 : fd }
    public var nextWake: Int64? { nil }
    public var statusLines: [String] {
        let front = toplevels.values.filter(\.activated).max { $0.activatedAt < $1.activatedAt }?.appID
        return ["wayland: \(state) (\(display)\(managerVersion.map { ", \(Self.managerInterface) v\($0)" } ?? ""))"
                + (live ? ", \(toplevels.count) toplevel(s), activated: \(front ?? "none")" : "")]
    }

    public func start() -> [PlatformReport] { readable() }

    public func readable() -> [PlatformReport] {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var open = true
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { inbox += buffer[0..<n]; continue }
            if n < 0, errno == EINTR { continue }
            if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) { open = false }
            break
        }
        do {
            let (messages, used) = try WaylandMessage.split(inbox)
            inbox.removeFirst(used)
            for message in messages { try handle(message) }
            // Once per read, not per toplevel: a focus change deactivates one window and
            // activates another in two messages, and no "home" is to be seen between them.
            if live, changed { reportFront() }
        } catch {
            lose("a message from the compositor could not be read: \(error)")
        }
        if !open { lose("the compositor hung up") }
        return take()
    }

    public func woken(now: Int64) -> [PlatformReport] { [] }
    public func close() { Glibc.close(fd) }

    private func take() -> [PlatformReport] {
        defer { reports.removeAll() }
        return reports
    }

    private func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    private func lose(_ why: String) {
        guard state != "lost" else { return }
        state = "lost"
        live = false
        reports.append(.source("wayland", live: false, detail: why))
        toplevels.removeAll()
        reportFront()
    }

    private func handle(_ m: WaylandMessage) throws {
        var r = m.reader
        switch (m.object, m.opcode) {
        case (1, 0):   // wl_display.error
            _ = try r.uint()
            let code = try r.uint()
            lose("the compositor said error \(code): \(try r.string() ?? "")")
        case (1, 1): break   // wl_display.delete_id
        case (registryID, 0):   // wl_registry.global
            let name = try r.uint()
            let interface = try r.string()
            let version = try r.uint()
            if interface == Self.managerInterface, managerVersion == nil {
                let bound = min(version, 3)
                managerVersion = bound
                send(WaylandMessage.request(registryID, 0, [.uint(name), .string(Self.managerInterface), .uint(bound), .uint(managerID)]))
            }
        case (registryID, _): break
        case (syncID, 0):   // wl_callback.done: every global has been announced
            if managerVersion == nil {
                state = "absent"
                reports.append(.source("wayland", live: false, detail: "the compositor at \(display) offers no \(Self.managerInterface)"))
            } else {
                state = "live"
                live = true
                reports.append(.source("wayland", live: true, detail: "\(Self.managerInterface) v\(managerVersion!) at \(display)"))
                reportFront()
            }
        case (managerID, 0):   // toplevel(new handle)
            toplevels[try r.uint()] = Toplevel()
        case (managerID, 1):   // finished
            lose("the compositor stopped sending toplevels")
        case let (id, opcode) where toplevels[id] != nil:
            try handleToplevel(id, opcode, &r)
        default: break
        }
    }

    private func handleToplevel(_ id: UInt32, _ opcode: UInt16, _ r: inout WaylandMessage.Reader) throws {
        switch opcode {
        case 1: toplevels[id]?.pendingAppID = try r.string()   // app_id
        case 4:   // state: an array of 32-bit values; 2 is activated
            let raw = try r.array()
            let states = stride(from: 0, to: raw.count - raw.count % 4, by: 4).map { WaylandMessage.word(raw, $0) }
            toplevels[id]?.pendingActivated = states.contains(2)
        case 5:   // done: the pending state holds
            guard var t = toplevels[id] else { return }
            if let appID = t.pendingAppID { t.appID = appID }
            if let activated = t.pendingActivated {
                if activated && !t.activated { activations += 1; t.activatedAt = activations }
                t.activated = activated
            }
            t.pendingAppID = nil
            t.pendingActivated = nil
            toplevels[id] = t
            changed = true
        case 6:   // closed: gone; the handle is destroyed (request 7)
            toplevels[id] = nil
            send(WaylandMessage.request(id, 7, []))
            changed = true
        default: break   // title, output enter/leave, parent
        }
    }

    /// Reports the activated toplevel's app id when it changes.
    private func reportFront() {
        changed = false
        let front = toplevels.values.filter(\.activated).max { $0.activatedAt < $1.activatedAt }?.appID
        if let reported = reportedFront, reported == front { return }
        reportedFront = .some(front)
        reports.append(.front("wayland", appID: front))
    }
}
