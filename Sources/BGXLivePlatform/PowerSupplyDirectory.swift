import BGXLive
import Foundation

/// Charging and battery from the kernel's `/sys/class/power_supply` where no
/// UPower runs: a mains or USB supply `online`, or a battery `Charging` or
/// `Full`, is charging; the first present battery's `capacity` is its level.
/// The kernel tells of changes only as uevents to udev, so the directory is
/// read every `interval` — the only source that is looked at on a timer.
public final class PowerSupplyDirectory: PlatformSource, @unchecked Sendable {
    let directory: String
    let interval: Int64
    public private(set) var nextWake: Int64?
    var last = "not read yet"
    var live: Bool?

    public init(directory: String = "/sys/class/power_supply", interval: Int64 = 30_000_000_000) {
        self.directory = directory
        self.interval = interval
    }

    public var descriptor: Int32 { -1 }
    public var statusLines: [String] {
        ["power-supply: \(live == true ? "live" : "absent") (\(directory), read every \(interval / 1_000_000_000) s: \(last))"]
    }

    public func start() -> [PlatformReport] { woken(now: MonotonicClock.now()) }

    public func woken(now: Int64) -> [PlatformReport] {
        nextWake = now + interval
        var reports: [PlatformReport] = []
        let supplies = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        func read(_ supply: String, _ file: String) -> String? {
            (try? String(contentsOfFile: "\(directory)/\(supply)/\(file)", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        var charging: Bool?
        var battery: Int?
        for supply in supplies {
            switch read(supply, "type") {
            case "Mains", "USB", "USB_C", "USB_PD", "Wireless":
                if read(supply, "online") == "1" { charging = true } else if charging == nil { charging = false }
            case "Battery":
                // A peripheral's battery (a mouse's: scope Device) is not the device's.
                guard read(supply, "scope") != "Device", read(supply, "present") != "0" else { continue }
                if let status = read(supply, "status") {
                    if status == "Charging" || status == "Full" { charging = true } else if charging == nil { charging = false }
                }
                if battery == nil, let capacity = read(supply, "capacity").flatMap(Int.init) { battery = min(100, max(0, capacity)) }
            default: continue
            }
        }
        let found = charging != nil || battery != nil
        if live != found {
            live = found
            reports.append(.source("power-supply", live: found, detail: found ? directory : "no mains, USB or battery supply in \(directory)"))
        }
        last = found ? "charging \(charging ?? false), battery \(battery.map { "\($0)%" } ?? "none")" : "nothing there"
        if let charging { reports.append(.device("power-supply", setting: "charging=\(charging)")) }
        if let battery { reports.append(.device("power-supply", setting: "battery=\(battery)")) }
        return reports
    }

    public func readable() -> [PlatformReport] { [] }
    public func close() {}
}
