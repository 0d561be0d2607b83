/// rules §4's controller for the long-running services: audio, location,
/// accessory and Bluetooth sessions, and VoIP, each app's state in one
/// record. One controller rather than one per family, because the families
/// share what they decide by: the one short run an event buys a suspended or
/// terminated app (`wakeUntil`, whichever service's event bought it), the one
/// audio-or-accessory reason for jetsam's band, and the one rule of what ends
/// with the process and what the system keeps (significant-change and region
/// monitoring, Bluetooth state restoration, VoIP's failure count). Split
/// four ways, each would have to read the others' state to decide.
struct LongRunningServicesController: Sendable, Codable {
    /// Per app, by `AppID.index`; survives the process (what the system keeps).
    var apps: [AppServices] = []
    /// No event's run ends before this (`Nanoseconds.max`: none runs): the
    /// engine asks `endRuns` once its clock reaches it.
    var runsEndBy = Nanoseconds.max

    mutating func appInstalled() { apps.append(AppServices()) }

    // Inlining measured (callgrind, `bgx bench`, November 2026): removing every `@inline(__always)`
    // in Services/ (2 of them in this file) cost the engine 233 instructions per event.
    /// What ends with the process goes (see `AppServices.processEnded`).
    @inline(__always) mutating func processEnded(_ app: AppID) {
        apps[Int(app.index)].processEnded()
    }

    /// A VoIP push's handler starts: until it returns, a call it reports counts as reported in it.
    mutating func voipHandlerStarting(_ app: AppID, _ number: UInt32) {
        apps[Int(app.index)].voip.handlerRunning = number
        apps[Int(app.index)].voip.reportedInHandler = false
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
}

extension LongRunningServicesController {
    /// Why an app in the background may not start audio now, or nil (rules §4):
    /// it needs the `audio` mode and a category that plays in the background,
    /// and — unless its audio mixes — the app in front (`front`, another app)
    /// must not be playing audio that does not mix.
    func backgroundAudioRefusal(category: AudioCategory, mixes: Bool, hasAudioMode: Bool, front: AppID?,
                                frontName: (AppID) -> String) -> String? {
        if !hasAudioMode { return "no 'audio' in UIBackgroundModes: a background app cannot start audio" }
        if !category.playsInBackground { return "the \(category) category does not play in the background" }
        if !mixes, let front, let theirs = apps[Int(front.index)].audio, !theirs.mixesWithOthers {
            return "\(frontName(front)) in front is playing audio: a background app cannot interrupt it "
                + "(insufficient priority)"
        }
        return nil
    }

    /// The app starts playing: a new playback, whose end (if it has a
    /// duration) carries a ticket for it.
    mutating func startAudio(_ app: AppID, category: AudioCategory, mixes: Bool) -> UInt32 {
        let i = Int(app.index)
        apps[i].audioNumber &+= 1
        apps[i].audio = AudioPlayback(number: apps[i].audioNumber, category: category, mixesWithOthers: mixes)
        return apps[i].audioNumber
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
