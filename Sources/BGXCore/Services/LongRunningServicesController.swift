/// rules §4's controller for the long-running services: audio, location,
/// accessory and Bluetooth sessions, and VoIP, each app's state in one
/// record. One controller rather than one per family, because the families
/// share what they decide by: the one short run an event buys a suspended or
/// terminated app (`wakeUntil`, whichever service's event bought it), the one
/// audio-or-accessory reason for jetsam's band, and the one rule of what ends
/// with the process and what the system keeps (significant-change and region
/// monitoring, Bluetooth state restoration, VoIP's failure count). Split
/// four ways, each would have to read the others' state to decide.
///
/// It reads what it is told — the moment, its settings, the app's process
/// (`ServiceAppView`) — and returns effects; its state is written only by
/// the methods in this file. Where a decision must wait for the engine to
/// act first (a location event after the previous one woke the app, an
/// interrupted player in another app), it returns a `ServiceStep`, and the
/// engine calls it back with the app as it is then.
struct LongRunningServicesController: Sendable, Codable {
    /// Per app, by `AppID.index`; survives the process (what the system keeps).
    private(set) var apps: [AppServices] = []
    /// No event's run ends before this (`Nanoseconds.max`: none runs): the
    /// engine asks `endRuns` once its clock reaches it.
    private(set) var runsEndBy = Nanoseconds.max

    mutating func appInstalled() { apps.append(AppServices()) }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Services/ (2 of them in this file, then) cost the engine 233 instructions per event.
    // `hasAudioOrSession` and `hasDisconnectedSession` below are inlined as the reads in place they replace were.
    /// What ends with the process goes (see `AppServices.processEnded`).
    @inline(__always) mutating func processEnded(_ app: AppID) {
        apps[Int(app.index)].processEnded()
    }

    /// An event buys the app in the background a run of at least `runTime`
    /// (a run already longer stands); its end carries a ticket for this run.
    mutating func extendRun(_ app: AppID, runTime: Nanoseconds, now: Nanoseconds, epoch: UInt32) -> Effect {
        let i = Int(app.index)
        let until = max(apps[i].wakeUntil ?? now, now + runTime)
        apps[i].wakeUntil = until
        runsEndBy = min(runsEndBy, until)
        apps[i].wakeNumber &+= 1
        return .schedule(.serviceWakeEnd(app, Ticket(epoch: epoch, number: apps[i].wakeNumber)), at: until)
    }

    /// The run an event bought is over, or the app came to the front.
    mutating func runEnded(_ app: AppID) { apps[Int(app.index)].wakeUntil = nil }

    /// The run's `serviceWakeEnd` came up: its reason goes, and the app suspends if idle.
    mutating func runEndFired(_ app: AppID) -> [Effect] {
        runEnded(app)
        return [.setAssertion(app, .serviceEvent, false), .suspendIfThreadFree(app)]
    }

    /// The clock reached `now`: the runs that end by then are over. Returns
    /// their apps' indices (their `serviceEvent` reason goes), and looks
    /// again at the next run's end. A run ends as the clock reaches it, not
    /// when its `serviceWakeEnd` comes up: anything else due at that moment
    /// and queued earlier comes first, and must find the run already over.
    mutating func endRuns(now: Nanoseconds) -> [Int] {
        var ended: [Int] = []
        var next = Nanoseconds.max
        for i in apps.indices {
            guard let until = apps[i].wakeUntil else { continue }
            if until <= now {
                apps[i].wakeUntil = nil
                ended.append(i)
            } else {
                next = min(next, until)
            }
        }
        runsEndBy = next
        return ended
    }

    /// Whether the app's run bought by an event lasts past `now`.
    @inline(__always) func runLasts(_ i: Int, now: Nanoseconds) -> Bool {
        if let until = apps[i].wakeUntil, now < until { return true }
        return false
    }

    /// Audible audio, or an accessory or Bluetooth session held open in the
    /// background with its mode: jetsam's audio-and-accessory band (rules §10).
    func holdsAudioOrAccessory(_ i: Int, running: Bool, inForeground: Bool,
                               hasMode: (AccessoryTransport) -> Bool) -> Bool {
        guard running else { return false }
        if apps[i].audio != nil { return true }
        return !inForeground && (apps[i].accessory == .open && hasMode(.accessory)
                                 || apps[i].bluetooth == .open && hasMode(.bluetooth))
    }

    /// The audio-and-accessory reason, as the app's process now says it should be.
    func audioOrAccessoryAssertion(_ app: AppID, _ view: ServiceAppView) -> Effect {
        .setAssertion(app, .audioOrAccessory, holdsAudioOrAccessory(
            Int(app.index), running: view.state != .notRunning, inForeground: view.state.isForeground) {
                Self.hasMode($0, view.modes)
            })
    }

    /// Whether the app declares the mode a transport is served by in the background.
    static func hasMode(_ transport: AccessoryTransport, _ modes: Set<BackgroundMode>) -> Bool {
        switch transport {
        case .accessory: return modes.contains(.externalAccessory)
        case .bluetooth: return modes.contains(.bluetoothCentral) || modes.contains(.bluetoothPeripheral)
        }
    }

    /// The mode's name as messages quote it (Bluetooth: either role's mode).
    static func modeName(_ transport: AccessoryTransport) -> String {
        transport == .accessory ? BackgroundMode.externalAccessory.rawValue
            : "\(BackgroundMode.bluetoothCentral.rawValue)' or '\(BackgroundMode.bluetoothPeripheral.rawValue)"
    }

    /// Hands the app a service callback: in front it simply runs; in the
    /// background it runs at least `runTime` more; a suspended app is resumed
    /// and a terminated one launched into the background with `cause` (the
    /// launch policy has been asked: `ServiceAppView.launchRefusal`).
    mutating func wakeForEvent(_ app: AppID, cause: LaunchCause, callback: Callback, runTime: Nanoseconds,
                               _ view: ServiceAppView, now: Nanoseconds, _ effects: inout [Effect]) {
        if !view.state.isForeground {
            effects.append(extendRun(app, runTime: runTime, now: now, epoch: view.epoch))
            effects.append(.setAssertion(app, .serviceEvent, runLasts(Int(app.index), now: now)))
        }
        // A launch killed at once leaves no process for the event.
        effects.append(.wakeIntoBackground(app, cause))
        effects.append(.enqueueIfRunning(app, .service(callback)))
    }

    /// Whether the app has anything leaving the front can stop: audio or a session.
    @inline(__always) func hasAudioOrSession(_ i: Int) -> Bool {
        apps[i].audio != nil || apps[i].accessory != .none || apps[i].bluetooth != .none
    }

    /// Without its mode, a service stops when the app leaves the front (rules §4).
    /// (The audio-and-accessory reason is the caller's to set afterwards.)
    mutating func enteredBackground(_ app: AppID, _ view: ServiceAppView, _ effects: inout [Effect]) {
        let i = Int(app.index)
        if let audio = apps[i].audio {
            if !view.modes.contains(.audio) {
                stopAudio(app, reason: "no 'audio' in UIBackgroundModes: audio stops when the app leaves the front",
                          view, &effects)
            } else if !audio.category.playsInBackground {
                stopAudio(app, reason: "the \(audio.category) category is silenced when the app leaves the front "
                          + "(background audio needs playback, record or playAndRecord)", view, &effects)
            }
        }
        for transport in AccessoryTransport.allCases
        where apps[i].session(transport) == .open && !Self.hasMode(transport, view.modes) {
            apps[i].setSession(transport, .disconnected)
            effects.append(.serviceNote(app, .accessoryDisconnect(transport, reason:
                "no '\(Self.modeName(transport))' in UIBackgroundModes: the \(transport) disconnects "
                + "when the app leaves the front")))
            effects.append(.queueJob(app, .service(.accessoryDidDisconnect(transport))))
        }
    }

    /// Whether a session the system closed waits for the app's return to the front.
    @inline(__always) func hasDisconnectedSession(_ i: Int) -> Bool {
        apps[i].accessory == .disconnected || apps[i].bluetooth == .disconnected
    }

    /// Sessions the system closed reconnect when the app is back in front.
    mutating func reconnect(_ app: AppID) -> [Effect] {
        let i = Int(app.index)
        var effects: [Effect] = []
        for transport in AccessoryTransport.allCases where apps[i].session(transport) == .disconnected {
            apps[i].setSession(transport, .open)
            effects.append(.trace(app, .accessoryConnect(transport: transport)))
        }
        return effects
    }
}

/// What the services controller reads of an app's process, taken by the
/// engine at the moment it asks.
struct ServiceAppView {
    var state: ProcessState
    var epoch: UInt32
    var modes: Set<BackgroundMode>
    /// Why the launch policy would not wake or launch the app now for the
    /// event's cause; nil when it would, or when the app runs and needs no launch.
    var launchRefusal: String? = nil
}

/// Where the services controller goes on once the engine has carried out
/// the effects before it (the app is read again then).
enum ServiceStep: Sendable, Equatable {
    /// Another app's audio that does not mix is interrupted.
    case interruptAudio(AppID, reason: String)
    /// A standard location fix for the app.
    case standardFix(AppID)
    /// A significant-change fix is due now: delivered, or dropped if the app may not be woken.
    case significantChange(AppID)
    /// The device entered or left a region the app monitors.
    case region(AppID, TextID, entered: Bool)
    /// The app was woken for a VoIP push: if it runs, the push is queued for it.
    case voipPushWoke(AppID, payload: UInt32)

    /// The app the step reads, and the cause its launch would have.
    var app: AppID {
        switch self {
        case let .interruptAudio(app, _), let .standardFix(app), let .significantChange(app), let .region(app, _, _),
             let .voipPushWoke(app, _): app
        }
    }
    var cause: LaunchCause? {
        switch self {
        case .significantChange: .location
        case .region: .region
        case .interruptAudio, .standardFix, .voipPushWoke: nil
        }
    }
}

/// A service's trace line with words of its own (interned as it is written).
enum ServiceNote: Sendable, Equatable {
    case audioRefuse(reason: String)
    case audioStop(reason: String)
    case accessoryDisconnect(AccessoryTransport, reason: String)
    case accessoryDrop(AccessoryTransport, reason: String)
    case locationDrop(LocationService, reason: String)
    case locationDefer(LocationService, reason: String)
    case voipDrop(VoIPTrigger, reason: String)
}

// MARK: - Audio (`BackgroundAudio.swift` forwards the app's calls)

extension LongRunningServicesController {
    /// Why an app in the background may not start audio now, or nil (rules §4):
    /// it needs the `audio` mode and a category that plays in the background,
    /// and — unless its audio mixes — the app in front (`front`, another app)
    /// must not be playing audio that does not mix.
    func backgroundAudioRefusal(category: AudioCategory, mixes: Bool, hasAudioMode: Bool, front: AppID?,
                                frontName: String) -> String? {
        if !hasAudioMode { return "no 'audio' in UIBackgroundModes: a background app cannot start audio" }
        if !category.playsInBackground { return "the \(category) category does not play in the background" }
        if !mixes, let front, let theirs = apps[Int(front.index)].audio, !theirs.mixesWithOthers {
            return "\(frontName) in front is playing audio: a background app cannot interrupt it "
                + "(insufficient priority)"
        }
        return nil
    }

    /// `AVAudioSession.setActive(true)` and a player's `play()` for `duration`
    /// (nil: until stopped): whether it plays, and the effects. `front` is
    /// the app in front if another; the names are bundle identifiers.
    mutating func startAudio(_ app: AppID, duration: Nanoseconds?, category: AudioCategory, mixesWithOthers: Bool,
                             _ view: ServiceAppView, name: String, front: AppID?, frontName: String,
                             now: Nanoseconds) -> (plays: Bool, effects: [Effect]) {
        let i = Int(app.index)
        guard view.state.isRunning else { return (false, []) }
        let inFront = view.state.isForeground
        let mixes = mixesWithOthers || category.mixesByDefault
        if !inFront, let refusal = backgroundAudioRefusal(
            category: category, mixes: mixes, hasAudioMode: view.modes.contains(.audio), front: front,
            frontName: frontName) {
            return (false, [.serviceNote(app, .audioRefuse(reason: refusal))])
        }
        apps[i].audioNumber &+= 1
        apps[i].audio = AudioPlayback(number: apps[i].audioNumber, category: category, mixesWithOthers: mixes)
        var effects: [Effect] = [.setAssertion(app, .audio, true),
                                 .trace(app, .audioStart(category: category, duration: duration)),
                                 audioOrAccessoryAssertion(app, view)]
        if let duration {
            effects.append(.schedule(.audioEnd(app, Ticket(epoch: view.epoch, number: apps[i].audioNumber)),
                                     at: now + max(0, duration)))
        }
        // A non-mixable session interrupts every other non-mixable one: the
        // front app's always, and a background app's those of the other
        // background apps (the front app's it could not, see above). Only a
        // process plays: these are resident apps, in index order.
        if !mixes {
            let reason = inFront
                ? "interrupted: \(name) in front started playing audio (the foreground app has audio priority)"
                : "interrupted: \(name) started playing audio that does not mix with others"
            for k in apps.indices where k != i {
                guard let theirs = apps[k].audio, !theirs.mixesWithOthers else { continue }
                effects.append(.continueServices(.interruptAudio(AppID(index: Int32(k)), reason: reason)))
            }
        }
        return (true, effects)
    }

    /// Another app's non-mixable audio started: this app's stops, and it hears of the interruption.
    mutating func interruptAudio(_ app: AppID, reason: String, _ view: ServiceAppView) -> [Effect] {
        guard let theirs = apps[Int(app.index)].audio, !theirs.mixesWithOthers else { return [] }
        var effects: [Effect] = []
        stopAudio(app, reason: reason, view, &effects)
        effects.append(.queueJob(app, .service(.audioInterruptionBegan)))
        effects.append(.pump(app))
        return effects
    }

    /// The app stops its player, or its playback finished: it suspends if nothing else holds it.
    mutating func audioStopped(_ app: AppID, reason: String, _ view: ServiceAppView) -> [Effect] {
        guard apps[Int(app.index)].audio != nil else { return [] }
        var effects: [Effect] = []
        stopAudio(app, reason: reason, view, &effects)
        effects.append(.suspendIfThreadFree(app))
        return effects
    }

    mutating func stopAudio(_ app: AppID, reason: String, _ view: ServiceAppView, _ effects: inout [Effect]) {
        apps[Int(app.index)].audio = nil
        effects.append(.setAssertion(app, .audio, false))
        effects.append(.serviceNote(app, .audioStop(reason: reason)))
        effects.append(audioOrAccessoryAssertion(app, view))
    }
}

// MARK: - Accessories and Bluetooth (`AccessorySessions.swift`)

extension LongRunningServicesController {
    /// `EASession(accessory:forProtocol:)` / `CBCentralManager.connect`. With
    /// `restores` (and the profile's state restoration) the system keeps a
    /// Bluetooth connection for the app after it ends.
    mutating func openSession(_ app: AppID, _ transport: AccessoryTransport, restores: Bool, _ view: ServiceAppView,
                              settings: LongRunningSettings) -> [Effect] {
        let i = Int(app.index)
        guard view.state.isRunning else { return [] }
        if transport == .bluetooth { apps[i].bluetoothRestores = restores && settings.bluetoothStateRestoration }
        guard apps[i].session(transport) != .open else { return [] }
        apps[i].setSession(transport, .open)
        return [.trace(app, .accessoryConnect(transport: transport)), audioOrAccessoryAssertion(app, view)]
    }

    /// The app closes its session (or cancels its peripheral connection).
    mutating func closeSession(_ app: AppID, _ transport: AccessoryTransport, _ view: ServiceAppView) -> [Effect] {
        let i = Int(app.index)
        if transport == .bluetooth { apps[i].bluetoothRestores = false }
        guard apps[i].session(transport) != .none else { return [] }
        apps[i].setSession(transport, .none)
        return [.serviceNote(app, .accessoryDisconnect(transport, reason: "closed by the app")),
                audioOrAccessoryAssertion(app, view)]
    }

    /// Why the accessory's (or peripheral's) data may not reach the app now, or nil.
    func accessoryDataRefusal(_ app: AppID, _ transport: AccessoryTransport, _ view: ServiceAppView) -> String? {
        let i = Int(app.index)
        if view.state == .notRunning {
            guard transport == .bluetooth else { return "the app is not running; accessory data never launches an app" }
            guard apps[i].bluetoothRestores else {
                return "the app is not running and the system keeps no Bluetooth connection for it "
                    + "(state restoration needs a restore identifier and a pending connection)"
            }
            return view.launchRefusal
        }
        switch apps[i].session(transport) {
        case .open: break
        case .disconnected:
            return "the \(transport) was disconnected when the app left the front (no '\(Self.modeName(transport))' "
                + "in UIBackgroundModes)"
        case .none: return "the app has no open \(transport) session"
        }
        if !view.state.isForeground && !Self.hasMode(transport, view.modes) {
            return "no '\(Self.modeName(transport))' in UIBackgroundModes: data is not delivered in the background"
        }
        return view.launchRefusal
    }

    /// The accessory (or peripheral) has new data for the app (`view.launchRefusal` for `transport.cause`).
    mutating func accessoryData(_ app: AppID, _ transport: AccessoryTransport, _ view: ServiceAppView,
                                now: Nanoseconds, settings: LongRunningSettings) -> [Effect] {
        if let refusal = accessoryDataRefusal(app, transport, view) {
            return [.serviceNote(app, .accessoryDrop(transport, reason: refusal))]
        }
        var effects: [Effect] = [.trace(app, .accessoryDeliver(transport: transport))]
        wakeForEvent(app, cause: transport.cause, callback: .accessoryData(transport),
                     runTime: settings.accessoryEventRunTime, view, now: now, &effects)
        return effects
    }
}

// MARK: - Location (`LocationServices.swift`)

extension LongRunningServicesController {
    /// Whether standard updates may continue (and keep the app running) in the background.
    static func backgroundLocationAllowed(_ location: LocationState, _ modes: Set<BackgroundMode>,
                                          settings: LongRunningSettings) -> Bool {
        modes.contains(.location)
            && (location.allowsBackgroundUpdates || !settings.requiresAllowsBackgroundLocationUpdates)
    }

    /// Standard location updates hold the app in the background only where
    /// it may receive them there: asked when updates start or stop and when
    /// `allowsBackgroundLocationUpdates` changes.
    func backgroundLocationAssertion(_ app: AppID, _ view: ServiceAppView, settings: LongRunningSettings) -> Effect {
        let location = apps[Int(app.index)].location
        return .setAssertion(app, .backgroundLocation,
                             location.standard && Self.backgroundLocationAllowed(location, view.modes, settings: settings))
    }

    /// `startUpdatingLocation` / `startMonitoringSignificantLocationChanges`
    /// (a region is `startMonitoringRegion`).
    mutating func startLocation(_ app: AppID, _ service: LocationService, _ view: ServiceAppView,
                                settings: LongRunningSettings) -> [Effect] {
        let i = Int(app.index)
        // App code still running after its process ended (exit, a synchronous kill) starts nothing.
        guard view.state != .notRunning else { return [] }
        var effects: [Effect] = []
        switch service {
        case .standard:
            guard !apps[i].location.standard else { return [] }
            apps[i].location.standard = true
            effects.append(backgroundLocationAssertion(app, view, settings: settings))
        case .significant:
            guard !apps[i].location.significant else { return [] }
            apps[i].location.significant = true
            apps[i].location.metersSinceFix = 0
        case .region:
            preconditionFailure("a region is started with startMonitoringRegion")
        }
        effects.append(.trace(app, .locationStart(service: service)))
        return effects
    }

    mutating func stopLocation(_ app: AppID, _ service: LocationService, _ view: ServiceAppView,
                               settings: LongRunningSettings) -> [Effect] {
        let i = Int(app.index)
        var effects: [Effect] = []
        switch service {
        case .standard:
            guard apps[i].location.standard else { return [] }
            apps[i].location.standard = false
            effects.append(backgroundLocationAssertion(app, view, settings: settings))
        case .significant:
            guard apps[i].location.significant else { return [] }
            apps[i].location.significant = false
            apps[i].location.significantGeneration &+= 1
            apps[i].location.significantDeferred = false
        case .region:
            guard !apps[i].location.regions.isEmpty else { return [] }
            apps[i].location.regions.removeAll()
        }
        effects.append(.trace(app, .locationStop(service: service)))
        effects.append(.suspendIfThreadFree(app))
        return effects
    }

    /// `startMonitoring(for: CLCircularRegion)`: a circle of `radius` metres
    /// around `center` (where the device is now); the device starts inside it.
    mutating func startMonitoringRegion(_ app: AppID, _ id: TextID, center: Int64, radius: Int64) -> [Effect] {
        let i = Int(app.index)
        apps[i].location.regions.removeAll { $0.identifier == id }
        apps[i].location.regions.append(MonitoredRegion(identifier: id, center: center, radius: max(1, radius), inside: true))
        return [.trace(app, .locationStart(service: .region))]
    }

    mutating func stopMonitoringRegion(_ app: AppID, _ id: TextID) -> [Effect] {
        let i = Int(app.index)
        let before = apps[i].location.regions.count
        apps[i].location.regions.removeAll { $0.identifier == id }
        return apps[i].location.regions.count != before ? [.trace(app, .locationStop(service: .region))] : []
    }

    /// `allowsBackgroundLocationUpdates`. iOS refuses it without the
    /// `location` mode (it raises an exception; bgx logs and ignores it).
    mutating func setAllowsBackgroundUpdates(_ app: AppID, _ allowed: Bool, _ view: ServiceAppView,
                                             settings: LongRunningSettings) -> [Effect] {
        if allowed && !view.modes.contains(.location) {
            return [.log(app, "Invalid parameter not satisfying: !stayUp || CLClientIsBackgroundable(internal->fClient) — "
                         + "allowsBackgroundLocationUpdates needs 'location' in UIBackgroundModes")]
        }
        apps[Int(app.index)].location.allowsBackgroundUpdates = allowed
        var effects = [backgroundLocationAssertion(app, view, settings: settings)]
        if !allowed { effects.append(.suspendIfThreadFree(app)) }
        return effects
    }

    /// The device moved `meters` to `position` along its route: each app's
    /// services hear of it, in app order — a standard fix, a significant
    /// change due, the regions entered or left (each delivered once what came
    /// before is carried out: `ServiceStep`).
    mutating func deviceMoved(meters: Int64, to position: Int64, now: Nanoseconds,
                              settings: LongRunningSettings) -> [Effect] {
        var effects: [Effect] = []
        for i in apps.indices {
            let app = AppID(index: Int32(i))
            let location = apps[i].location
            if location.standard { effects.append(.continueServices(.standardFix(app))) }
            if location.significant {
                apps[i].location.metersSinceFix += Int64(clamping: meters.magnitude)
                considerSignificantChange(app, now: now, settings: settings, &effects)
            }
            for r in location.regions.indices {
                let region = apps[i].location.regions[r]
                let inside = abs(position - region.center) <= region.radius
                guard inside != region.inside else { continue }
                apps[i].location.regions[r].inside = inside
                effects.append(.continueServices(.region(app, region.identifier, entered: inside)))
            }
        }
        return effects
    }

    /// A standard fix: delivered unless the app is suspended (updates stop then).
    func standardFix(_ app: AppID, _ view: ServiceAppView) -> [Effect] {
        guard view.state == .suspended else {
            return [.trace(app, .locationDeliver(service: .standard, region: nil, entered: false)),
                    .enqueue(app, .service(.didUpdateLocations(.standard)))]
        }
        let why = view.modes.contains(.location)
            ? "allowsBackgroundLocationUpdates is false: standard updates stop while the app is suspended"
            : "no 'location' in UIBackgroundModes: standard updates stop while the app is suspended"
        return [.serviceNote(app, .locationDrop(.standard, reason: why))]
    }

    /// A significant change is due once the device has moved far enough —
    /// and no sooner than the minimum interval after the last one.
    mutating func considerSignificantChange(_ app: AppID, now: Nanoseconds, settings: LongRunningSettings,
                                            _ effects: inout [Effect]) {
        let i = Int(app.index)
        let location = apps[i].location
        guard location.metersSinceFix >= settings.significantChangeDistance, !location.significantDeferred else { return }
        if let last = location.lastSignificantFix, now - last < settings.significantChangeMinimumInterval {
            let due = last + settings.significantChangeMinimumInterval
            apps[i].location.significantDeferred = true
            apps[i].location.significantGeneration &+= 1
            effects.append(.schedule(.significantChangeDue(app, generation: apps[i].location.significantGeneration), at: due))
            effects.append(.serviceNote(app, .locationDefer(.significant, reason:
                "significant-change fixes come at most once per \(Time.describe(settings.significantChangeMinimumInterval)); "
                + "this one is due at t=\(Time.format(due))s")))
            return
        }
        apps[i].location.metersSinceFix = 0
        apps[i].location.lastSignificantFix = now
        effects.append(.continueServices(.significantChange(app)))
    }

    /// A deferred significant-change fix came due.
    mutating func significantChangeDue(_ app: AppID, generation: UInt32, now: Nanoseconds,
                                       settings: LongRunningSettings) -> [Effect] {
        let i = Int(app.index)
        guard apps[i].location.significant, apps[i].location.significantGeneration == generation,
              apps[i].location.significantDeferred else { return [] }
        apps[i].location.significantDeferred = false
        var effects: [Effect] = []
        considerSignificantChange(app, now: now, settings: settings, &effects)
        return effects
    }

    /// A location event (a significant change, or a region entered or left)
    /// wakes or relaunches the app, unless the launch policy refuses (`view.launchRefusal`).
    mutating func locationEvent(_ app: AppID, _ service: LocationService, region: TextID?, entered: Bool,
                                _ view: ServiceAppView, now: Nanoseconds, settings: LongRunningSettings) -> [Effect] {
        if let refusal = view.launchRefusal { return [.serviceNote(app, .locationDrop(service, reason: refusal))] }
        var effects: [Effect] = [.trace(app, .locationDeliver(service: service, region: region, entered: entered))]
        let callback: Callback = region.map { entered ? .didEnterRegion($0) : .didExitRegion($0) }
            ?? .didUpdateLocations(.significant)
        wakeForEvent(app, cause: service == .region ? .region : .location, callback: callback,
                     runTime: settings.locationEventRunTime, view, now: now, &effects)
        return effects
    }
}

// MARK: - VoIP (`VoIP.swift`)

extension LongRunningServicesController {
    /// Why a PushKit VoIP push is dropped, or nil: PushKit must exist, the app
    /// must not have failed to report a call too often (`name`: its bundle
    /// identifier), and the launch policy must allow it (`launchRefusal`).
    func voipPushRefusal(_ app: AppID, name: String, launchRefusal: String?, settings: PushSettings) -> String? {
        if !settings.pushKitAvailable { return "PushKit VoIP pushes exist from iOS 8 on" }
        let failures = apps[Int(app.index)].voip.failures
        if failures >= settings.voipReportFailureLimit {
            return "\(name) will not be launched because it failed to report an incoming call too many times "
                + "(\(failures) times)"
        }
        return launchRefusal
    }

    /// The app was woken for a VoIP push: if it runs, the push is queued for its handler.
    mutating func voipPushWoke(_ app: AppID, payload: UInt32, _ view: ServiceAppView) -> [Effect] {
        // A launch killed at once (over the memory limit) leaves no push for the next process.
        guard view.state.isRunning else { return [] }
        let i = Int(app.index)
        apps[i].voip.nextNumber &+= 1
        if payload != 0 { apps[i].voip.payloads[apps[i].voip.nextNumber] = payload }
        return [.enqueue(app, .voipPush(apps[i].voip.nextNumber))]
    }

    /// The payload of the VoIP push `number`, taken (0: none).
    mutating func takeVoIPPushPayload(_ app: AppID, number: UInt32) -> UInt32 {
        apps[Int(app.index)].voip.payloads.removeValue(forKey: number) ?? 0
    }

    /// A VoIP push's handler starts: until it returns, a call it reports counts as reported in it.
    mutating func voipHandlerStarting(_ app: AppID, _ number: UInt32) {
        apps[Int(app.index)].voip.handlerRunning = number
        apps[Int(app.index)].voip.reportedInHandler = false
    }

    /// CallKit's `reportNewIncomingCall(with:update:completion:)`.
    mutating func reportIncomingCall(_ app: AppID) -> [Effect] {
        let i = Int(app.index)
        if apps[i].voip.handlerRunning != nil { apps[i].voip.reportedInHandler = true }
        return [.trace(app, .callReport)]
    }

    /// The VoIP push handler returned: the termination's words when it did
    /// not report a call and must have (rules §4, iOS 13+), else nil.
    mutating func voipHandlerReturned(_ app: AppID, settings: PushSettings) -> String? {
        let i = Int(app.index)
        let reported = apps[i].voip.reportedInHandler
        apps[i].voip.handlerRunning = nil
        guard !reported, settings.voipMustReportCall else { return nil }
        apps[i].voip.failures += 1
        return "Killing app because it never posted an incoming call to the system after receiving a "
            + "PushKit VoIP push (\(apps[i].voip.failures) of \(settings.voipReportFailureLimit))"
    }

    /// Incoming traffic on the app's VoIP socket: the system wakes the app
    /// to read it. A terminated app has no socket to watch.
    func voipSocketTraffic(_ app: AppID, _ view: ServiceAppView) -> [Effect] {
        if !view.modes.contains(.voip) {
            return [.serviceNote(app, .voipDrop(.socket, reason:
                "UIBackgroundModes lacks 'voip': the system does not watch the socket"))]
        }
        if view.state == .notRunning {
            return [.serviceNote(app, .voipDrop(.socket, reason: "the app is not running: its VoIP socket is closed"))]
        }
        return wakeForVoIP(app, .socket)
    }

    func wakeForVoIP(_ app: AppID, _ trigger: VoIPTrigger) -> [Effect] {
        [.trace(app, .voipWake(trigger: trigger)),
         .wakeIntoBackground(app, .voipPush),  // running or suspended: never a launch
         .enqueueIfRunning(app, trigger == .socket ? .voipSocket : .keepAlive)]
    }

    /// `setKeepAliveTimeout(_:handler:)`: false (and a console message) for
    /// less than the minimum, or without the `voip` mode.
    mutating func setKeepAliveTimeout(_ app: AppID, _ timeout: Nanoseconds, _ view: ServiceAppView, now: Nanoseconds,
                                      settings: PushSettings) -> (installed: Bool, effects: [Effect]) {
        let i = Int(app.index)
        let minimum = settings.minimumKeepAliveTimeout
        if timeout < minimum {
            return (false, [.log(app, "setKeepAliveTimeout: \(Time.describe(timeout)) is less than the minimum of "
                                 + "\(Time.describe(minimum)); the handler was not installed")])
        }
        if !view.modes.contains(.voip) {
            return (false, [.log(app, "setKeepAliveTimeout: UIBackgroundModes lacks 'voip'; the handler was not installed")])
        }
        apps[i].voip.keepAliveInterval = timeout
        apps[i].voip.keepAliveGeneration &+= 1
        return (true, [.schedule(.keepAlive(app, Ticket(epoch: view.epoch, number: apps[i].voip.keepAliveGeneration)),
                                 at: now + timeout)])
    }

    /// `clearKeepAliveTimeout()`.
    mutating func clearKeepAliveTimeout(_ app: AppID) {
        let i = Int(app.index)
        apps[i].voip.keepAliveInterval = nil
        apps[i].voip.keepAliveGeneration &+= 1
    }

    /// The keep-alive handler's time came: the next is scheduled, and an app
    /// in the background is woken for it (one in front needs none).
    func keepAliveFired(_ app: AppID, _ ticket: Ticket, _ view: ServiceAppView, now: Nanoseconds) -> [Effect] {
        guard let interval = apps[Int(app.index)].voip.keepAliveInterval else { return [] }
        let next: Effect = .schedule(.keepAlive(app, ticket), at: now + interval)
        return view.state.isForeground ? [next] : [next] + wakeForVoIP(app, .keepAlive)
    }
}

extension LongRunningServicesController: Controller {
    mutating func appInstalled(_ manifest: AppManifest) { appInstalled() }

    @inline(__always) mutating func processEnded(_ app: AppID, _ reason: TerminationReason,
                                                 _ context: ControllerContext, _ effects: inout [Effect]) {
        processEnded(app)
    }

    /// Audio playing, background location updates the app may receive, and the run an event bought.
    func heldAssertions(of app: AppID, _ context: ControllerContext) -> BackgroundAssertions {
        let i = Int(app.index)
        var held: BackgroundAssertions = []
        if apps[i].audio != nil { held.insert(.audio) }
        if apps[i].location.standard, context.appDeclaresLocation,
           apps[i].location.allowsBackgroundUpdates || !context.locationNeedsOptIn {
            held.insert(.backgroundLocation)
        }
        if runLasts(i, now: context.now) { held.insert(.serviceEvent) }
        return held
    }
}
