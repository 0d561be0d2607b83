/// rules §4: what an app holds of the long-running services — audio,
/// location, accessory and Bluetooth sessions — and the short run the system
/// grants it when one of them has news for it.

/// The location services an app can start (`CLLocationManager`).
public enum LocationService: String, Sendable, CaseIterable, CustomStringConvertible, Codable {
    /// `startUpdatingLocation`: fixes as the device moves.
    case standard
    /// `startMonitoringSignificantLocationChanges`.
    case significant
    /// `startMonitoring(for: region)`.
    case region
    public var description: String { rawValue }
}

/// What carries an accessory's data: an External Accessory session or a
/// Core Bluetooth connection.
public enum AccessoryTransport: UInt8, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case accessory, bluetooth
    public var description: String { self == .accessory ? "accessory" : "bluetooth" }
    /// The launch cause a wake for it is recorded with (the trace's `launch {cause}`, docs/scenarios.md).
    var cause: LaunchCause { self == .accessory ? .accessory : .bluetooth }
}

/// `AVAudioSession.Category`: only playback and recording categories keep
/// sounding in the background; ambient ones are silenced with the screen [D].
public enum AudioCategory: String, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case ambient, soloAmbient, playback, record, playAndRecord
    public var description: String { rawValue }
    public var playsInBackground: Bool { self == .playback || self == .record || self == .playAndRecord }
    /// Ambient audio mixes with other apps' audio by definition.
    public var mixesByDefault: Bool { self == .ambient }
}

/// An app's audio, while it plays or records.
struct AudioPlayback: Sendable, Codable {
    var number: UInt32
    var category: AudioCategory
    var mixesWithOthers: Bool
}

/// A region monitored for an app: a radius around the point on the device's
/// route where monitoring started (see `SensorState.position`).
struct MonitoredRegion: Sendable, Codable {
    var identifier: TextID
    var center: Int64
    var radius: Int64
    var inside: Bool
}

/// An app's location services.
struct LocationState: Sendable, Codable {
    var standard = false
    /// `allowsBackgroundLocationUpdates` (iOS 9+; false by default).
    var allowsBackgroundUpdates = false
    var significant = false
    /// Metres moved since the last significant-change fix delivered.
    var metersSinceFix: Int64 = 0
    var lastSignificantFix: Nanoseconds?
    /// Bumped when a deferred significant-change fix is scheduled or made
    /// moot. Not a ticket's number: the monitoring survives the process, and
    /// the deferred fix relaunches a terminated app.
    var significantGeneration: UInt32 = 0
    var significantDeferred = false
    var regions: [MonitoredRegion] = []
}

/// An accessory or Bluetooth session.
enum SessionState: Sendable, Equatable, Codable {
    case none
    case open
    /// Closed by the system when the app left the front without the mode;
    /// it reconnects when the app returns to the front.
    case disconnected
}

/// Everything rules §4 keeps per app (`LongRunningServicesController`).
struct AppServices: Sendable, Codable {
    var audio: AudioPlayback?
    var audioNumber: UInt32 = 0
    var location = LocationState()
    var accessory = SessionState.none
    var bluetooth = SessionState.none
    /// Core Bluetooth state restoration: the system keeps the app's pending
    /// connection after it is terminated and relaunches it for its events.
    var bluetoothRestores = false
    /// An event woke the app: it runs at least until then.
    var wakeUntil: Nanoseconds?
    var wakeNumber: UInt32 = 0
    var voip = VoIPState()

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Services/ (1 of them in this file) cost the engine 233 instructions per event.
    /// Inlined: as a call it copies the whole record (its regions and all) to read one field.
    @inline(__always) func session(_ transport: AccessoryTransport) -> SessionState {
        transport == .accessory ? accessory : bluetooth
    }
    /// What ends with the process: audio, standard updates, sessions and the
    /// event run. Significant-change and region monitoring, and a Bluetooth
    /// connection kept for state restoration, are the system's and survive.
    mutating func processEnded() {
        audio = nil
        location.standard = false
        location.allowsBackgroundUpdates = false
        accessory = .none
        bluetooth = .none
        wakeUntil = nil
        voip.processEnded()
    }
    mutating func setSession(_ transport: AccessoryTransport, _ state: SessionState) {
        if transport == .accessory { accessory = state } else { bluetooth = state }
    }
}

/// Device-wide sensor state. The device moves along a line (a route): its
/// position is metres along it, and `location: {moveMeters: N}` moves it N
/// metres on (negative: back). Distances between two points of the route are
/// what regions and significant changes measure — simple, and enough to
/// leave a region and come back.
struct SensorState: Sendable, Codable {
    var position: Int64 = 0
}
