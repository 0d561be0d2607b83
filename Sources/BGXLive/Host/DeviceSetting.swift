import BGXCore

/// `bgx ctl device KEY=VALUE`: a sensor reading as a real device would report it.
enum DeviceSetting {
    static func change(_ assignment: String) -> Result<DeviceChange, LiveError> {
        let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return .failure(LiveError("device takes KEY=VALUE, not \(assignment)")) }
        let (key, value) = (parts[0], parts[1])
        func flag() -> Bool? { ["true": true, "yes": true, "on": true, "false": false, "no": false, "off": false][value] }
        func bad() -> Result<DeviceChange, LiveError> { .failure(LiveError("device \(key): bad value \(value)")) }
        switch key {
        case "charging": return flag().map { .success(.charging($0)) } ?? bad()
        case "lowPowerMode": return flag().map { .success(.lowPowerMode($0)) } ?? bad()
        case "backgroundAppRefresh": return flag().map { .success(.backgroundAppRefresh($0)) } ?? bad()
        case "cameraActive": return flag().map { .success(.cameraActive($0)) } ?? bad()
        case "network": return DeviceState.Network(rawValue: value).map { .success(.network($0)) } ?? bad()
        case "thermal": return DeviceState.Thermal(rawValue: value).map { .success(.thermal($0)) } ?? bad()
        case "memoryPressure": return DeviceState.MemoryPressure(rawValue: value).map { .success(.memoryPressure($0)) } ?? bad()
        case "battery":
            let digits = value.hasSuffix("%") ? String(value.dropLast()) : value
            guard let n = Int(digits), (0...100).contains(n) else { return bad() }
            return .success(.battery(n))
        case "cpuLoad":
            guard let n = Int(value), (0...100).contains(n) else { return bad() }
            return .success(.cpuLoad(n))
        default:
            return .failure(LiveError("not yet supported: device \(key) (charging, lowPowerMode, backgroundAppRefresh, "
                                      + "cameraActive, network, thermal, memoryPressure, battery, cpuLoad are)"))
        }
    }
}

/// A refusal with its words, for a reply.
public struct LiveError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
