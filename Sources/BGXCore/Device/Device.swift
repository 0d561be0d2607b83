/// The device's own conditions (a scenario's `device:`, docs/scenarios.md). Later
/// controllers (the scheduler, jetsam) read them; every change is traced.
public struct DeviceState: Sendable, Equatable, Codable {
    public enum Network: String, Sendable, CaseIterable, Codable { case wifi, cellular, none }
    public enum Thermal: String, Sendable, CaseIterable, Codable { case nominal, fair, serious, critical }
    /// The system's memory pressure as dasd's MemoryPressurePolicy reads it
    /// (a scenario input; jetsam's own accounting is separate, rules §10).
    public enum MemoryPressure: String, Sendable, CaseIterable, Codable { case normal, warning, critical }

    /// Battery level in percent, 0…100.
    public var battery: Int = 100
    public var charging: Bool = false
    public var network: Network = .wifi
    /// Bytes per second.
    public var bandwidth: Int64 = 2 * 1024 * 1024
    public var lowPowerMode: Bool = false
    /// The global Background App Refresh switch.
    public var backgroundAppRefresh: Bool = true
    public var passcode: Bool = true
    /// Bytes of RAM.
    public var memory: Int64 = 4 * 1024 * 1024 * 1024
    /// rules §1: a device property; without it no app enters the background.
    public var multitasking: Bool = true
    public var thermal: Thermal = .nominal
    /// System-wide CPU use in percent, 0…100: dasd's CPUUsagePolicy holds
    /// processing back above 50 % (logged `Required:50.00, Observed:90.00`).
    public var cpuLoad: Int = 0
    /// Memory pressure as dasd sees it (MemoryPressurePolicy).
    public var memoryPressure: MemoryPressure = .normal
    /// The camera is in use: dasd's MemoryPressurePolicy says Must Not
    /// Proceed to background launches (logged `[{cameraIsActive == 1}]`).
    public var cameraActive: Bool = false
    public var locked: Bool = false
    /// No background launch before the first unlock after boot (rules §11).
    public var unlockedSinceBoot: Bool = true
    /// The device's clock, which floating notification dates follow (rules §9).
    public var timeZone: TimeZoneRules = .utc
    /// `BGTaskScheduler.supportedResources` contains `.gpu` (rules §13): not every device has background GPU.
    public var backgroundGPU: Bool = false

    public init() {}
}

/// A change to one device property; the engine applies it and traces it.
public enum DeviceChange: Sendable, Equatable, Codable {
    case battery(Int)
    case charging(Bool)
    case network(DeviceState.Network)
    case bandwidth(Int64)
    case lowPowerMode(Bool)
    case backgroundAppRefresh(Bool)
    case passcode(Bool)
    case memory(Int64)
    case multitasking(Bool)
    case thermal(DeviceState.Thermal)
    case cpuLoad(Int)
    case memoryPressure(DeviceState.MemoryPressure)
    case cameraActive(Bool)
    case timeZone(TimeZoneRules)
    case backgroundGPU(Bool)
    case reboot
}

/// What the person holding the device does (a scenario timeline's `user:`, docs/scenarios.md).
public enum UserAction: Sendable, Equatable, Codable {
    case launch(AppID)
    case home
    case lock
    case unlock
    case switchTo(AppID)
    case forceQuit(AppID)
    /// Opens a notification from Notification Center (rules §9).
    case tapNotification(NotificationID)
    /// Cancels a continued-processing task from its Live Activity (rules §13).
    case cancelTask(TextID)
    /// The app's notifications (rules §9): the person's answer when it asks, or, once it
    /// has, its switch in Settings › Notifications (`setNotificationsAllowed`).
    case allowNotifications(AppID)
    case denyNotifications(AppID)
}

/// An installed app's handle inside the engine.
public struct AppID: Hashable, Sendable, Comparable, Codable {
    public let index: Int32
    @inlinable public init(index: Int32) { self.index = index }
    @inlinable public static func < (a: AppID, b: AppID) -> Bool { a.index < b.index }
}
