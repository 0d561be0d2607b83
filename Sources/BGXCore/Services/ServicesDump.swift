/// The long-running services controller's state for one app, as data and in
/// words (AOSP's `dumpControllerStateLocked`): what plays, which location
/// services run, the accessory and Bluetooth sessions, the run an event
/// bought, and VoIP's keep-alive and failures.
public struct ServicesControllerDump: ControllerDump, Equatable {
    public var concern: String { "services" }

    public struct Region: Sendable, Encodable, Equatable {
        public var identifier: String
        public var inside: Bool
    }
    /// The audio session's category while it plays (nil: silent), and whether it mixes.
    public var audioCategory: String?
    public var audioMixes: Bool
    /// Standard updates, and whether they run in the background (the mode and `allowsBackgroundLocationUpdates`).
    public var standardLocation: Bool
    public var standardLocationInBackground: Bool
    public var significantChanges: Bool
    public var regions: [Region]
    /// "open", "disconnected" or nil (none), per transport; whether the system keeps a Bluetooth connection.
    public var accessory: String?
    public var bluetooth: String?
    public var bluetoothRestores: Bool
    /// The run an event bought the app in the background ends then.
    public var runUntil: Nanoseconds?
    public var keepAliveInterval: Nanoseconds?
    /// VoIP handlers that returned without reporting a call, of at most
    /// `voipFailureLimit` (in words in the push controller's section: it stops VoIP pushes).
    public var voipFailures: Int
    public var voipFailureLimit: Int

    public var isEmpty: Bool {
        audioCategory == nil && !standardLocation && !significantChanges && regions.isEmpty && accessory == nil
            && bluetooth == nil && !bluetoothRestores && runUntil == nil && keepAliveInterval == nil
    }

    public func lines(when: (Nanoseconds) -> String) -> [String] {
        var lines: [String] = []
        if let audioCategory { lines.append("audio: playing (\(audioCategory)\(audioMixes ? ", mixes with others" : ""))") }
        if standardLocation {
            lines.append("location: standard updates" + (standardLocationInBackground ? ", in the background too"
                : " (stop in the background: no 'location' mode or allowsBackgroundLocationUpdates is false)"))
        }
        if significantChanges { lines.append("location: significant-change monitoring (survives the process)") }
        for region in regions { lines.append("region '\(region.identifier)': \(region.inside ? "inside" : "outside")") }
        if let accessory { lines.append("accessory session: \(accessory)") }
        if let bluetooth { lines.append("bluetooth connection: \(bluetooth)") }
        if bluetoothRestores { lines.append("the system keeps the Bluetooth connection after the app ends (state restoration)") }
        if let runUntil { lines.append("an event's run holds the app in the background until \(when(runUntil))") }
        if let keepAliveInterval { lines.append("VoIP keep-alive every \(Time.describe(keepAliveInterval))") }
        return lines
    }
}

extension LongRunningServicesController {
    /// The controller's state for the app now (`modes`: its declared modes; `name` words a region's identifier).
    func dump(of app: AppID, modes: Set<BackgroundMode>, now: Nanoseconds, settings: LongRunningSettings,
              voipFailureLimit: Int, name: (TextID) -> String) -> ServicesControllerDump {
        let s = apps[Int(app.index)]
        func session(_ state: SessionState) -> String? {
            switch state {
            case .none: nil
            case .open: "open"
            case .disconnected: "disconnected"
            }
        }
        return ServicesControllerDump(
            audioCategory: s.audio.map { "\($0.category)" }, audioMixes: s.audio?.mixesWithOthers ?? false,
            standardLocation: s.location.standard,
            standardLocationInBackground: Self.backgroundLocationAllowed(s.location, modes, settings: settings),
            significantChanges: s.location.significant,
            regions: s.location.regions.map { .init(identifier: name($0.identifier), inside: $0.inside) },
            accessory: session(s.accessory), bluetooth: session(s.bluetooth), bluetoothRestores: s.bluetoothRestores,
            runUntil: s.wakeUntil.flatMap { now < $0 ? $0 : nil }, keepAliveInterval: s.voip.keepAliveInterval,
            voipFailures: s.voip.failures, voipFailureLimit: voipFailureLimit)
    }
}

extension Engine {
    /// The long-running services controller's state for the app now.
    public func servicesControllerDump(of app: AppID) -> ServicesControllerDump {
        services.dump(of: app, modes: apps[Int(app.index)].manifest.backgroundModes, now: now,
                      settings: profile.longRunning, voipFailureLimit: profile.push.voipReportFailureLimit) { text($0) }
    }
}
