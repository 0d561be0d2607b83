import BGXLive
import Foundation

/// `--platform`: which sources feed the engine. `auto` takes each one that
/// is there (systemd when `$NOTIFY_SOCKET` is set, the system bus's services
/// when it answers, the power-supply directory when it exists, the
/// compositor when a Wayland display is named); `none` takes none; a list
/// names them. A source that cannot be had is kept as absent, with why,
/// for `status` and the trace.
public struct PlatformChoice {
    public static let names = ["systemd", "upower", "power-supply", "networkmanager", "logind", "wayland"]
    public var wanted: Set<String>
    public var auto: Bool
    public var systemBus: String?
    public var powerSupplyDirectory = "/sys/class/power_supply"
    public var powerSupplyInterval: Int64 = 30_000_000_000
    public var waylandDisplay: String?

    /// nil when a name is not a source's.
    public init?(_ spec: String) {
        switch spec {
        case "auto": auto = true; wanted = Set(Self.names)
        case "none": auto = false; wanted = []
        default:
            auto = false
            wanted = Set(spec.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) })
            guard !wanted.isEmpty, wanted.isSubset(of: Self.names) else { return nil }
        }
    }

    /// The sources, and systemd's notifier when it is wanted and there.
    public func make() -> (sources: [PlatformSource], systemd: SystemdNotifier?, systemdStatus: String?) {
        var sources: [PlatformSource] = []
        var systemd: SystemdNotifier?
        var systemdStatus: String?
        if wanted.contains("systemd") {
            do {
                systemd = try SystemdNotifier.fromEnvironment()
                if systemd == nil { systemdStatus = "systemd: absent (no NOTIFY_SOCKET: not started by systemd as Type=notify)" }
            } catch { systemdStatus = "systemd: absent (NOTIFY_SOCKET: \(error))" }
        }
        let services = SystemServices.Service.allCases.filter { wanted.contains($0.rawValue) }
        if !services.isEmpty {
            do { sources.append(try SystemServices(services: services, address: systemBus)) } catch {
                let address = systemBus ?? DBusConnection.systemBusAddress
                for service in services {
                    sources.append(AbsentSource(service.rawValue, "the system bus at \(address) did not answer: \(error)"))
                }
            }
        }
        if wanted.contains("power-supply") {
            if !auto || FileManager.default.fileExists(atPath: powerSupplyDirectory) {
                sources.append(PowerSupplyDirectory(directory: powerSupplyDirectory, interval: powerSupplyInterval))
            } else {
                sources.append(AbsentSource("power-supply", "no \(powerSupplyDirectory)"))
            }
        }
        if wanted.contains("wayland") {
            if auto, waylandDisplay == nil, getenv("WAYLAND_DISPLAY") == nil {
                sources.append(AbsentSource("wayland", "no Wayland display named (WAYLAND_DISPLAY or --wayland-display)"))
            } else {
                do { sources.append(try ForeignToplevels(display: waylandDisplay)) } catch {
                    sources.append(AbsentSource("wayland", "could not connect to the compositor: \(error)"))
                }
            }
        }
        return (sources, systemd, systemdStatus)
    }
}

/// A source that could not be had: says so, once, and why.
final class AbsentSource: PlatformSource, @unchecked Sendable {
    let name: String
    let why: String
    init(_ name: String, _ why: String) {
        self.name = name
        self.why = why
    }
    var descriptor: Int32 { -1 }
    var nextWake: Int64? { nil }
    var statusLines: [String] { ["\(name): absent (\(why))"] }
    func start() -> [PlatformReport] { [.source(name, live: false, detail: why)] }
    func readable() -> [PlatformReport] { [] }
    func woken(now: Int64) -> [PlatformReport] { [] }
    func close() {}
}
