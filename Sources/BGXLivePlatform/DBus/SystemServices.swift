import BGXLive
import Foundation

/// UPower (charging, battery), NetworkManager (network) and logind (lock),
/// read over one connection to the system bus. Each service is live while
/// its name has an owner on the bus: a service that starts after the daemon
/// is found by `NameOwnerChanged`, one that stops is said to be gone. On any
/// signal from a service its properties are read again, and what changed is
/// reported — the source keeps no guess of its own.
public final class SystemServices: PlatformSource, @unchecked Sendable {
    public enum Service: String, CaseIterable, Sendable {
        case upower, networkmanager, logind
        var busName: String {
            switch self {
            case .upower: return "org.freedesktop.UPower"
            case .networkmanager: return "org.freedesktop.NetworkManager"
            case .logind: return "org.freedesktop.login1"
            }
        }
    }

    let bus: DBusConnection
    let address: String
    let services: [Service]
    /// Which services have an owner now, and their owner's unique name.
    var owners: [Service: String] = [:]
    /// The last reading of each service, as `device` settings or the lock.
    var settings: [String: String] = [:]
    var locked: Bool?
    /// logind's session followed: the seat's active one (its object path).
    var session: String?
    var reports: [PlatformReport] = []
    var lost = false

    /// Connects to the system bus at `address` (nil: `$DBUS_SYSTEM_BUS_ADDRESS`, else the well-known socket).
    public init(services: [Service], address: String? = nil) throws {
        self.address = address ?? DBusConnection.systemBusAddress
        self.services = services
        bus = try DBusConnection(address: self.address)
        bus.onSignal = { [weak self] in self?.signal($0) }
    }

    public var descriptor: Int32 { lost ? -1 : bus.fd }
    public var nextWake: Int64? { nil }
    public var statusLines: [String] {
        services.map { service in
            let state = lost ? "lost (the bus hung up)" : owners[service].map { "live (\(service.busName) is \($0) on \(address))" }
                ?? "absent (no \(service.busName) on \(address); watching for it)"
            return "\(service.rawValue): \(state)"
        }
    }

    public func start() -> [PlatformReport] {
        for service in services {
            // Every signal the service sends, and its name's owner changing.
            bus.addMatch("type='signal',sender='\(service.busName)'")
            bus.addMatch("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(service.busName)'")
            bus.call(.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                           signature: "s", [.text(service.busName)])) { [weak self] reply in
                guard let self else { return }
                if reply.kind == .methodReturn, let owner = reply.body.first?.string {
                    self.appeared(service, owner: owner)
                } else {
                    self.reports.append(.source(service.rawValue, live: false, detail: "no \(service.busName) on the system bus (\(self.address)); watching for it"))
                }
            }
        }
        return take()
    }

    public func readable() -> [PlatformReport] {
        if !bus.readAvailable() {
            lost = true
            for service in services {
                owners[service] = nil
                reports.append(.source(service.rawValue, live: false, detail: "the system bus hung up"))
            }
        }
        return take()
    }

    public func woken(now: Int64) -> [PlatformReport] { [] }
    public func close() { bus.close() }

    private func take() -> [PlatformReport] {
        defer { reports.removeAll() }
        return reports
    }

    private func appeared(_ service: Service, owner: String) {
        owners[service] = owner
        reports.append(.source(service.rawValue, live: true, detail: "\(service.busName) (\(owner)) on \(address)"))
        read(service)
    }

    private func signal(_ message: DBusMessage) {
        if message.member == "NameOwnerChanged", message.interface == "org.freedesktop.DBus", message.body.count == 3,
           let name = message.body[0].string, let new = message.body[2].string,
           let service = services.first(where: { $0.busName == name }) {
            if new.isEmpty {
                owners[service] = nil
                reports.append(.source(service.rawValue, live: false, detail: "\(name) left the bus"))
            } else {
                appeared(service, owner: new)
            }
            return
        }
        guard let sender = message.sender, let service = owners.first(where: { $0.value == sender })?.key else { return }
        if service == .logind {
            switch (message.interface ?? "", message.member ?? "") {
            // Lock and Unlock ask the session's locker; LockedHint is what it then says it did. Both count.
            case ("org.freedesktop.login1.Session", "Lock"), ("org.freedesktop.login1.Session", "Unlock"):
                if session == nil || message.path == session { setLocked(message.member == "Lock", by: service) }
            case ("org.freedesktop.DBus.Properties", "PropertiesChanged"):
                if message.path == session, message.body.count >= 2, case let .array(changed) = message.body[1] {
                    for case let .group(pair) in changed where pair.count == 2 && pair[0].string == "LockedHint" {
                        if let hint = pair[1].boolValue { setLocked(hint, by: service) }
                    }
                } else if message.path?.hasPrefix("/org/freedesktop/login1/seat/") == true {
                    readLock()   // the active session may have changed
                }
            case (_, "SessionNew"), (_, "SessionRemoved"): readLock()
            default: break
            }
            return
        }
        read(service)
    }

    /// Reads the service's properties again.
    private func read(_ service: Service) {
        switch service {
        case .upower: readPower()
        case .networkmanager: readNetwork()
        case .logind: readLock()
        }
    }

    /// Every reading is reported: the daemon gives the engine only what differs from what it holds.
    private func setting(_ key: String, _ value: String, by service: Service) {
        settings[key] = value
        reports.append(.device(service.rawValue, setting: "\(key)=\(value)"))
    }

    private func setLocked(_ value: Bool, by service: Service) {
        locked = value
        reports.append(.locked(service.rawValue, value))
    }

    /// UPower's display device (the battery the person sees): charging while it charges,
    /// is full, or waits to charge; on a machine with no battery, while not on battery.
    private func readPower() {
        let name = Service.upower.busName, device = "org.freedesktop.UPower.Device"
        let display = "/org/freedesktop/UPower/devices/DisplayDevice"
        bus.property(name, display, device, "IsPresent") { [weak self] present in
            guard let self else { return }
            if present?.boolValue == true {
                self.bus.property(name, display, device, "State") { state in
                    guard let state = state?.number else { return }
                    // 1 charging, 4 fully charged, 5 pending charge; 2, 3, 6 are on battery.
                    self.setting("charging", [1, 4, 5].contains(Int(state)) ? "true" : "false", by: .upower)
                }
                self.bus.property(name, display, device, "Percentage") { percent in
                    guard let percent = percent?.number, percent.isFinite else { return }
                    self.setting("battery", "\(Int(min(100, max(0, percent.rounded()))))", by: .upower)
                }
            } else {
                self.bus.property(name, "/org/freedesktop/UPower", name, "OnBattery") { onBattery in
                    guard let onBattery = onBattery?.boolValue else { return }
                    self.setting("charging", onBattery ? "false" : "true", by: .upower)
                }
            }
        }
    }

    /// NetworkManager: no network unless it has full connectivity (or, unknown,
    /// is globally connected); then cellular for a mobile or metered connection, else Wi-Fi.
    private func readNetwork() {
        let name = Service.networkmanager.busName, path = "/org/freedesktop/NetworkManager"
        bus.property(name, path, name, "Connectivity") { [weak self] connectivity in
            self?.bus.property(name, path, name, "State") { state in
                self?.bus.property(name, path, name, "PrimaryConnectionType") { type in
                    self?.bus.property(name, path, name, "Metered") { metered in
                        guard let self else { return }
                        let full = connectivity?.number == 4 || (connectivity?.number ?? 0 == 0 && state?.number == 70)
                        let mobile = ["gsm", "cdma", "wwan"].contains(type?.string ?? "") || [1, 3].contains(Int(metered?.number ?? 0))
                        self.setting("network", !full ? "none" : mobile ? "cellular" : "wifi", by: .networkmanager)
                    }
                }
            }
        }
    }

    /// logind: the seat's active session, and — when it is a new one — its LockedHint.
    /// After that, Lock, Unlock and LockedHint's changes say it: a late answer to this
    /// read must not undo a Lock that came meanwhile.
    private func readLock() {
        let name = Service.logind.busName
        bus.property(name, "/org/freedesktop/login1/seat/seat0", "org.freedesktop.login1.Seat", "ActiveSession") { [weak self] active in
            guard let self else { return }
            guard case let .group(pair)? = active, pair.count == 2, let path = pair[1].string, path != "/", path != self.session else { return }
            self.session = path
            self.bus.property(name, path, "org.freedesktop.login1.Session", "LockedHint") { hint in
                guard self.session == path else { return }
                if let hint = hint?.boolValue { self.setLocked(hint, by: .logind) }
                self.reports.append(.source("logind", live: true, detail: "following \(path), seat0's active session"
                                            + (hint?.boolValue.map { $0 ? " (locked)" : " (unlocked)" } ?? "")))
            }
        }
    }
}
