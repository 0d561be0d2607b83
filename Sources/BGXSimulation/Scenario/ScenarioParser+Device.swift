import BGXCore
import Yams

/// `device:` — the device's settings at the start, or a change a timeline
/// entry makes: each key sets the state and records the change, in the order written.
extension ScenarioParser {
    struct DeviceReading {
        var state: DeviceState
        var changes: [DeviceChange] = []
        let context: MomentContext
    }

    typealias DeviceKey = ScenarioKey<DeviceReading>

    /// A true/false setting.
    static func flag(_ name: String, _ path: WritableKeyPath<DeviceState, Bool>,
                     _ change: @escaping (Bool) -> DeviceChange) -> DeviceKey {
        DeviceKey(name) { p, node, key, d in
            d.state[keyPath: path] = try p.bool(node, key)
            d.changes.append(change(d.state[keyPath: path]))
        }
    }

    /// A setting with named values (`network: wifi`).
    static func named<V: RawRepresentable & CaseIterable>(
        _ name: String, _ what: String, _ path: WritableKeyPath<DeviceState, V>,
        _ change: @escaping (V) -> DeviceChange) -> DeviceKey where V.RawValue == String {
        DeviceKey(name) { p, node, key, d in
            let text = try p.scalar(node, key)
            guard let v = V(rawValue: text) else { throw p.unknown(node, what, text, V.allCases.map(\.rawValue)) }
            d.state[keyPath: path] = v
            d.changes.append(change(v))
        }
    }

    static let deviceKeys = ScenarioSection<DeviceReading>(what: "device", keys: [
        DeviceKey("battery") { p, node, key, d in
            let text = try p.scalar(node, key)
            guard let v = Units.percent(text) else { throw p.err(node, "\(key) must be a percentage 0–100%, got '\(text)'") }
            d.state.battery = v; d.changes.append(.battery(v))
        },
        flag("charging", \.charging, DeviceChange.charging),
        named("network", "network", \.network, DeviceChange.network),
        DeviceKey("bandwidth") { p, node, key, d in
            let text = try p.scalar(node, key)
            guard let v = Units.bandwidth(text), v > 0 else {
                throw p.err(node, "\(key) must be a rate like 2MB/s, got '\(text)'")
            }
            d.state.bandwidth = v; d.changes.append(.bandwidth(v))
        },
        flag("lowPowerMode", \.lowPowerMode, DeviceChange.lowPowerMode),
        flag("backgroundAppRefresh", \.backgroundAppRefresh, DeviceChange.backgroundAppRefresh),
        flag("passcode", \.passcode, DeviceChange.passcode),
        DeviceKey("memory") { p, node, key, d in
            let text = try p.scalar(node, key)
            guard let v = Units.size(text), v >= 256 * 1024 * 1024, v <= 64 * 1024 * 1024 * 1024 else {
                throw p.err(node, "device \(key) must be a size between 256MB and 64GB, got '\(text)'")
            }
            d.state.memory = v; d.changes.append(.memory(v))
        },
        flag("multitasking", \.multitasking, DeviceChange.multitasking),
        named("thermal", "thermal state", \.thermal, DeviceChange.thermal),
        DeviceKey("timeZone") { p, node, _, d in
            let v = try p.timeZone(node, d.context)
            d.state.timeZone = v; d.changes.append(.timeZone(v))
        },
        DeviceKey("cpuLoad") { p, node, key, d in
            let text = try p.scalar(node, key)
            guard let v = Units.percent(text) else { throw p.err(node, "\(key) must be a percentage 0–100%, got '\(text)'") }
            d.state.cpuLoad = v; d.changes.append(.cpuLoad(v))
        },
        named("memoryPressure", "memory pressure", \.memoryPressure, DeviceChange.memoryPressure),
        flag("cameraActive", \.cameraActive, DeviceChange.cameraActive),
        flag("backgroundGPU", \.backgroundGPU, DeviceChange.backgroundGPU),
    ])

    /// A timeline entry's `device:` may also restart the device.
    static let timelineDeviceKeys = deviceKeys.adding([
        DeviceKey("reboot") { p, node, key, d in
            guard try p.bool(node, key) else { throw p.err(node, "\(key) can only be true") }
            d.changes.append(.reboot)
        },
    ])

    func deviceSettings(_ node: Node, into device: DeviceState, allowReboot: Bool,
                        _ context: MomentContext) throws -> (DeviceState, [DeviceChange]) {
        var reading = DeviceReading(state: device, context: context)
        try read(allowReboot ? Self.timelineDeviceKeys : Self.deviceKeys, node, into: &reading)
        return (reading.state, reading.changes)
    }
}
