/// The words the system and its trace speak (docs/scenarios.md, "The trace").

/// rules §1: the five process states.
public enum ProcessState: UInt8, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case notRunning, inactive, active, background, suspended

    public var description: String {
        switch self {
        case .notRunning: "notRunning"
        case .inactive: "inactive"
        case .active: "active"
        case .background: "background"
        case .suspended: "suspended"
        }
    }
    /// Code runs in these states; a suspended app runs none [S].
    /// (A switch, not `==` thrice: the compiler kept the comparisons as a
    /// call, about 5 instructions per engine event with `isForeground`, callgrind.)
    @inlinable public var isRunning: Bool {
        switch self { case .inactive, .active, .background: true; case .notRunning, .suspended: false }
    }
    @inlinable public var isForeground: Bool {
        switch self { case .inactive, .active: true; case .notRunning, .background, .suspended: false }
    }
}

/// Why an app was launched; it reaches the app in its launch options.
public enum LaunchCause: UInt8, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case user, notification, bgTask, fetch, silentPush, voipPush, transfer,
         location, region, bluetooth, accessory, audio, newsstand, boot

    public var description: String {
        switch self {
        case .user: "user"
        case .notification: "notification"
        case .bgTask: "bgTask"
        case .fetch: "fetch"
        case .silentPush: "silentPush"
        case .voipPush: "voipPush"
        case .transfer: "transfer"
        case .location: "location"
        case .region: "region"
        case .bluetooth: "bluetooth"
        case .accessory: "accessory"
        case .audio: "audio"
        case .newsstand: "newsstand"
        case .boot: "boot"
        }
    }
    /// A user launch brings the app to the front; every other cause launches it
    /// straight into the background (rules §1), except a tapped notification.
    public var launchesIntoForeground: Bool { self == .user || self == .notification }
}

/// Why the system ended a process (the trace's `terminate {reason}`, docs/scenarios.md).
public enum TerminationReason: UInt8, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case userForceQuit, memoryPressure, watchdog, backgroundTaskTimeout, taskNotCompleted,
         cpuLimit, voipCallNotReported, gpuInBackground, lockHeldWhileSuspended,
         exitsOnSuspend, registrationAfterLaunch, completionHandlerTimeout, exit,
         /// Home pressed on a device without multitasking (rules §1).
         multitaskingUnsupported,
         /// `register(forTaskWithIdentifier:…)` twice for one identifier (NSInternalInconsistencyException).
         launchHandlerRegisteredTwice,
         /// A task was submitted or launched with no launch handler registered.
         noLaunchHandler,
         /// The device restarted.
         reboot,
         /// A notification trigger iOS raises NSInternalInconsistencyException
         /// for (a repeat under 60 s, an interval of 0) (rules §9).
         invalidNotificationTrigger,
         /// The app's own code trapped (a `fatalError`, a failed precondition
         /// or `dispatchPrecondition`, a bad forced cast, a nil unwrapped):
         /// the process crashed; the detail has the message and the app's frame.
         crash

    public var description: String {
        switch self {
        case .userForceQuit: "userForceQuit"
        case .memoryPressure: "memoryPressure"
        case .watchdog: "watchdog"
        case .backgroundTaskTimeout: "backgroundTaskTimeout"
        case .taskNotCompleted: "taskNotCompleted"
        case .cpuLimit: "cpuLimit"
        case .voipCallNotReported: "voipCallNotReported"
        case .gpuInBackground: "gpuInBackground"
        case .lockHeldWhileSuspended: "lockHeldWhileSuspended"
        case .exitsOnSuspend: "exitsOnSuspend"
        case .registrationAfterLaunch: "registrationAfterLaunch"
        case .completionHandlerTimeout: "completionHandlerTimeout"
        case .exit: "exit"
        case .multitaskingUnsupported: "multitaskingUnsupported"
        case .launchHandlerRegisteredTwice: "launchHandlerRegisteredTwice"
        case .noLaunchHandler: "noLaunchHandler"
        case .reboot: "reboot"
        case .invalidNotificationTrigger: "invalidNotificationTrigger"
        case .crash: "crash"
        }
    }

    /// The exception code a crash report would carry, where iOS has one.
    public var code: String? {
        switch self {
        case .watchdog: "0x8badf00d"                 // [D]
        case .backgroundTaskTimeout: "0x2182bad2"    // rules §2
        case .completionHandlerTimeout: "0x2182bad4" // rules §6
        case .voipCallNotReported: "0xbaadca11"      // rules §4
        case .lockHeldWhileSuspended: "0xdead10cc"   // rules §10
        default: nil
        }
    }
}

/// The names of the delegate callbacks (`Callback.name`), spelled once: the
/// trace writes them, the live host's app side dispatches on them.
public enum CallbackName: String, Sendable, CaseIterable {
    case didFinishLaunching, didBecomeActive, willResignActive, didEnterBackground, willEnterForeground,
         willTerminate, backgroundTaskExpired, localNotification, notificationResponse, bgTask, bgTaskExpired,
         performFetch, didReceiveMemoryWarning, socketsClosed, didUpdateLocations, didEnterRegion, didExitRegion,
         accessoryDataAvailable, peripheralDidUpdateValue, accessoryDidDisconnect, didDisconnectPeripheral,
         audioInterruptionBegan, handleEventsForBackgroundURLSession, urlSessionTaskDidComplete,
         urlSessionDidFinishEvents, didReceiveRemoteNotification, didReceiveIncomingPush, voipSocket,
         keepAliveHandler, performExpiringActivity
}

/// The delegate callbacks the system delivers (rules §1, §2).
public enum Callback: Sendable, Equatable, CustomStringConvertible, Codable {
    case didFinishLaunching(LaunchCause)
    case didBecomeActive
    case willResignActive
    case didEnterBackground
    case willEnterForeground
    case willTerminate
    /// A `beginBackgroundTask` expiration handler (rules §2).
    case backgroundTaskExpired(Int)
    /// A local notification delivered to the app in front (rules §9):
    /// `userNotificationCenter(_:willPresent:…)`.
    case localNotification(NotificationID)
    /// The user opened a notification (rules §9):
    /// `userNotificationCenter(_:didReceive:…)`.
    case notificationResponse(NotificationID)
    /// A BGTaskScheduler launch handler for this identifier (rules §5).
    case bgTask(TextID)
    /// A BGTask's expiration handler (rules §5).
    case bgTaskExpired(TextID)
    /// `application(_:performFetchWithCompletionHandler:)` (rules §6).
    case performFetch
    /// `applicationDidReceiveMemoryWarning` (rules §10).
    case didReceiveMemoryWarning
    /// Sockets the system closed while the app was suspended; it hears of
    /// them when it runs again (rules §10).
    case socketsClosed
    /// rules §4: `locationManager(_:didUpdateLocations:)` — a standard or significant-change fix.
    case didUpdateLocations(LocationService)
    /// rules §4: `locationManager(_:didEnterRegion:)` / `didExitRegion:` for a monitored region.
    case didEnterRegion(TextID)
    case didExitRegion(TextID)
    /// rules §4: an accessory's session or a Bluetooth peripheral has data for the app.
    case accessoryData(AccessoryTransport)
    /// rules §4: the accessory disconnected (`EAAccessoryDidDisconnect`, `didDisconnectPeripheral`).
    case accessoryDidDisconnect(AccessoryTransport)
    /// rules §4: `AVAudioSession.interruptionNotification`, type began.
    case audioInterruptionBegan
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` (rules §8).
    case handleEventsForBackgroundURLSession(TextID)
    /// The session delegate's `urlSession(_:task:didCompleteWithError:)` (after
    /// `urlSession(_:downloadTask:didFinishDownloadingTo:)` for a finished download).
    case urlSessionTaskDidComplete(session: TextID, task: Int32, kind: TransferKind, result: TransferResult)
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
    case urlSessionDidFinishEvents(TextID)
    /// `application(_:didReceiveRemoteNotification:fetchCompletionHandler:)`:
    /// push number N of the app, a background push or an alert push to the
    /// app in front (rules §7).
    case remoteNotification(UInt32, PushType)
    /// PushKit's `pushRegistry(_:didReceiveIncomingPushWith:for:completion:)` (rules §4).
    case voipPush(UInt32)
    /// Data arrived on the app's VoIP socket while it was in the background (rules §4).
    case voipSocket
    /// The handler installed with `setKeepAliveTimeout(_:handler:)` (rules §4).
    case keepAlive
    /// `performExpiringActivity`'s block: `expired == false` on the background
    /// queue, then `true` when the time runs out (rules §13).
    case expiringActivity(Int, expired: Bool)

    /// Which delegate method this is, as the trace and the live protocol name it.
    public var callbackName: CallbackName {
        switch self {
        case .didFinishLaunching: .didFinishLaunching
        case .didBecomeActive: .didBecomeActive
        case .willResignActive: .willResignActive
        case .didEnterBackground: .didEnterBackground
        case .willEnterForeground: .willEnterForeground
        case .willTerminate: .willTerminate
        case .backgroundTaskExpired: .backgroundTaskExpired
        case .localNotification: .localNotification
        case .notificationResponse: .notificationResponse
        case .bgTask: .bgTask
        case .bgTaskExpired: .bgTaskExpired
        case .performFetch: .performFetch
        case .didReceiveMemoryWarning: .didReceiveMemoryWarning
        case .socketsClosed: .socketsClosed
        case .didUpdateLocations: .didUpdateLocations
        case .didEnterRegion: .didEnterRegion
        case .didExitRegion: .didExitRegion
        case let .accessoryData(transport): transport == .accessory ? .accessoryDataAvailable : .peripheralDidUpdateValue
        case let .accessoryDidDisconnect(transport):
            transport == .accessory ? .accessoryDidDisconnect : .didDisconnectPeripheral
        case .audioInterruptionBegan: .audioInterruptionBegan
        case .handleEventsForBackgroundURLSession: .handleEventsForBackgroundURLSession
        case .urlSessionTaskDidComplete: .urlSessionTaskDidComplete
        case .urlSessionDidFinishEvents: .urlSessionDidFinishEvents
        case .remoteNotification: .didReceiveRemoteNotification
        case .voipPush: .didReceiveIncomingPush
        case .voipSocket: .voipSocket
        case .keepAlive: .keepAliveHandler
        case .expiringActivity: .performExpiringActivity
        }
    }
    public var name: String { callbackName.rawValue }
    public var description: String { name }
}

/// A local notification's identifier, interned by the engine so that trace
/// events stay small value types.
public struct NotificationID: Hashable, Sendable, Codable {
    public let index: Int32
}

/// rules §3: `UIBackgroundModes` values.
public enum BackgroundMode: String, Sendable, CaseIterable, Hashable, Codable {
    case audio, location, voip
    case newsstandContent = "newsstand-content"
    case externalAccessory = "external-accessory"
    case bluetoothCentral = "bluetooth-central"
    case bluetoothPeripheral = "bluetooth-peripheral"
    case fetch
    case remoteNotification = "remote-notification"
    case processing
}

/// The Info.plist keys the system reads (rules §3).
public struct AppManifest: Sendable, Equatable, Codable {
    public var bundleIdentifier: String
    /// `UIBackgroundModes`.
    public var backgroundModes: Set<BackgroundMode>
    /// `BGTaskSchedulerPermittedIdentifiers`.
    public var permittedTaskIdentifiers: [String]
    /// `UIApplicationExitsOnSuspend`.
    public var exitsOnSuspend: Bool
    /// Resident memory footprint in bytes (used by the memory model, rules §10).
    public var memory: Int64
    /// The app's own Background App Refresh switch in Settings.
    public var backgroundAppRefresh: Bool = true
    /// For an app extension: its containing app's bundle identifier. Its
    /// BGTaskScheduler requests are the containing app's and launch it (rules §5).
    public var extensionOf: String?
    /// Sound files in the bundle a notification may name (rules §9).
    public var sounds: [BundleSound] = []

    public init(bundleIdentifier: String, backgroundModes: Set<BackgroundMode> = [],
                permittedTaskIdentifiers: [String] = [], exitsOnSuspend: Bool = false,
                memory: Int64 = 100 * 1024 * 1024) {
        self.bundleIdentifier = bundleIdentifier
        self.backgroundModes = backgroundModes
        self.permittedTaskIdentifiers = permittedTaskIdentifiers
        self.exitsOnSuspend = exitsOnSuspend
        self.memory = memory
    }
}

/// rules §7: an APNs push's `apns-push-type`.
public enum PushType: UInt8, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case background, alert, voip
    public var description: String {
        switch self {
        case .background: "background"
        case .alert: "alert"
        case .voip: "voip"
        }
    }
}

/// A push as it reaches the device: its type and `apns-priority` (5 or 10).
public struct Push: Sendable, Equatable, Codable {
    public var type: PushType
    public var priority: UInt8
    /// Which of its host's payloads the push carries (0: none). The engine
    /// never reads it; it hands it over with the push, so the host can give
    /// the app the `userInfo` of the very push delivered (a held push may be
    /// replaced by a newer one, or dropped).
    public var payload: UInt32
    public init(type: PushType, priority: UInt8, payload: UInt32 = 0) {
        self.type = type
        self.priority = priority
        self.payload = payload
    }

    private enum CodingKeys: String, CodingKey { case type, priority, payload }
    /// A push written before pushes carried payloads has none.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(PushType.self, forKey: .type)
        priority = try c.decode(UInt8.self, forKey: .priority)
        payload = try c.decodeIfPresent(UInt32.self, forKey: .payload) ?? 0
    }
}

/// rules §4: what wakes a legacy VoIP app without a push.
public enum VoIPTrigger: UInt8, Sendable, CustomStringConvertible, Codable {
    /// Incoming traffic on the VoIP socket the system watches.
    case socket
    /// The periodic `setKeepAliveTimeout` handler.
    case keepAlive
    public var description: String { self == .socket ? "socket" : "keepAlive" }
}

extension AppManifest {
    /// The permitted identifier with a wildcard that `identifier` falls under
    /// (`com.example.export.*` for `com.example.export.photos`), if any — the
    /// form continued-processing requests are permitted and registered in.
    public func wildcardIdentifier(matching identifier: String) -> String? {
        permittedTaskIdentifiers.first { permitted in
            permitted.hasSuffix(".*") && identifier.count > permitted.count - 1
                && identifier.hasPrefix(permitted.dropLast())
        }
    }
}
