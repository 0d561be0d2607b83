/// rules §4: VoIP. PushKit VoIP pushes launch or wake the app (cause
/// `voipPush`); on iOS 13+ it must report a call to CallKit before the
/// handler returns or it is terminated (0xbaadca11), and after repeated
/// failures its VoIP pushes are no longer delivered. The legacy VoIP socket
/// wakes a suspended app on incoming traffic; `setKeepAliveTimeout(≥ 600 s)`
/// runs a handler periodically; VoIP apps are relaunched at boot.

/// What the system keeps per app for VoIP.
struct VoIPState: Sendable, Codable {
    var nextNumber: UInt32 = 0
    /// The VoIP push whose handler runs now, and whether it reported a call.
    var handlerRunning: UInt32?
    var reportedInHandler = false
    /// The payloads (`Push.payload`) of VoIP pushes queued for this process, by number.
    var payloads: [UInt32: UInt32] = [:]
    /// Handlers that returned without reporting a call (survives termination).
    var failures = 0
    /// The keep-alive interval installed in this process.
    var keepAliveInterval: Nanoseconds?
    var keepAliveGeneration: UInt32 = 0

    mutating func processEnded() {
        handlerRunning = nil
        payloads.removeAll()
        keepAliveInterval = nil
        keepAliveGeneration &+= 1
    }
}

// The app's calls, forwarded to `LongRunningServicesController`, which decides.
extension Engine {
    /// The payload (`Push.payload`) of the VoIP push `number`, taken (0: none).
    public mutating func takeVoIPPushPayload(for app: AppID, number: UInt32) -> UInt32 {
        services.takeVoIPPushPayload(app, number: number)
    }

    /// The payload (`Push.payload`) of the remote notification `number` handed to the app (0: none).
    public func remoteNotificationPayload(for app: AppID, number: UInt32) -> UInt32 {
        pushes.payload(app, number: number)
    }

    /// CallKit's `reportNewIncomingCall(with:update:completion:)`.
    public mutating func reportIncomingCall(for app: AppID) {
        apply(services.reportIncomingCall(app))
    }

    /// `setKeepAliveTimeout(_:handler:)`: false (and a console message) for
    /// less than the minimum, or without the `voip` mode.
    public mutating func setKeepAliveTimeout(for app: AppID, _ timeout: Nanoseconds) -> Bool {
        let set = services.setKeepAliveTimeout(app, timeout, serviceView(of: app), now: now, settings: profile.push)
        apply(set.effects)
        return set.installed
    }

    /// `clearKeepAliveTimeout()`.
    public mutating func clearKeepAliveTimeout(for app: AppID) {
        services.clearKeepAliveTimeout(app)
    }
}
