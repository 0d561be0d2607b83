/// Why an app is held running in the background, one reason per concern.
/// Each concern sets its own reason when it begins holding the app and
/// clears it when it lets go (as AOSP's controllers call
/// `setConstraintSatisfied` on a job); suspension and jetsam's bands read
/// the one set instead of every concern's fields.
struct BackgroundAssertions: OptionSet, Sendable, Hashable, Codable {
    let rawValue: UInt16

    /// `beginBackgroundTask` or `performExpiringActivity` is open (rules §2, §13).
    static let backgroundTask = BackgroundAssertions(rawValue: 1 << 0)
    /// A BGTask (refresh, processing, continued processing) is running (rules §5, §13).
    static let scheduledTask = BackgroundAssertions(rawValue: 1 << 1)
    /// A legacy background fetch is in progress (rules §6).
    static let fetch = BackgroundAssertions(rawValue: 1 << 2)
    /// The app was woken for a background session's events and has not yet
    /// called the completion handler (rules §8).
    static let transferEvents = BackgroundAssertions(rawValue: 1 << 3)
    /// A background push awaits its completion handler (rules §7).
    static let pushCompletion = BackgroundAssertions(rawValue: 1 << 4)
    /// Audible audio, or an accessory or Bluetooth session held in the
    /// background: jetsam's audio-and-accessory band (rules §10). It raises the
    /// band; keeping the app running is the services' own reason.
    static let audioOrAccessory = BackgroundAssertions(rawValue: 1 << 5)
    /// Audio is playing or recording (rules §4): set when it starts, cleared
    /// when it stops, is interrupted or silenced, or its playback ends.
    static let audio = BackgroundAssertions(rawValue: 1 << 6)
    /// Standard location updates the app may receive in the background: the
    /// `location` mode and, where the profile asks, `allowsBackgroundLocationUpdates` (rules §4).
    static let backgroundLocation = BackgroundAssertions(rawValue: 1 << 7)
    /// The short run a service event (a location fix, a region, accessory
    /// data, VoIP traffic) bought the app (rules §4, §11): cleared as the
    /// clock reaches its end, before anything due then is handled.
    static let serviceEvent = BackgroundAssertions(rawValue: 1 << 8)

    /// The reasons that keep a background app from being suspended.
    static let keepRunning: BackgroundAssertions = [.backgroundTask, .scheduledTask, .fetch, .transferEvents, .pushCompletion,
                                                    .audio, .backgroundLocation, .serviceEvent]

    /// Each reason's name, for `explain` and the dumps.
    static let names: [(BackgroundAssertions, String)] = [
        (.backgroundTask, "background task"), (.scheduledTask, "BGTask"), (.fetch, "fetch"),
        (.transferEvents, "session events"), (.pushCompletion, "push completion"),
        (.audioOrAccessory, "audio or accessory"), (.audio, "audio playing"),
        (.backgroundLocation, "location updates"), (.serviceEvent, "service event"),
    ]

    var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Engine/ (2 of them in this file) cost the engine 31 instructions per event.
    /// Sets or clears one reason.
    @inline(__always) mutating func set(_ reason: BackgroundAssertions, _ held: Bool) {
        if held { insert(reason) } else { remove(reason) }
    }
}

extension Engine {
    /// A concern begins or stops holding the app in the background.
    /// Inlined: as a call it cost about 15 instructions per engine event
    /// (`bgx bench`, callgrind), since every task, fetch and push sets one.
    @inline(__always) mutating func setAssertion(_ reason: BackgroundAssertions, _ held: Bool, _ i: Int) {
        apps[i].assertions.set(reason, held)
    }
}

extension Engine {
    /// Debug builds (every `swift test`) check at each suspension decision
    /// that every concern has set and cleared its reason in step with its own
    /// state: a concern that forgets to would keep an app running, or
    /// suspend it early, without a trace saying so.
    /// Each controller says which reasons it holds the app by (`heldAssertions`);
    /// together they must be the set's reasons that keep an app running.
    func assertionsMatchConcerns(_ i: Int) -> Bool {
        var context = controllerContext
        context.appDeclaresLocation = apps[i].manifest.backgroundModes.contains(.location)
        var question = HeldAssertions(app: AppID(index: Int32(i)), context: context)
        forEachControllerRead(&question)
        return apps[i].assertions.intersection(.keepRunning) == question.held
    }
}
