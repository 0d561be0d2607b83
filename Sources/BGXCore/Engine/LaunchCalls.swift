// Launch/ holds the launch policy (a value: the rules, and a verdict from
// facts) and the launch controller (the verdicts kept). What the verdict is
// asked with — the app's facts from the process table, the device — and
// acting on an allowed one — a launch, or a suspended app resumed — are the
// coordinator's, here.

extension Engine {
    /// The launch policy this engine's profile describes.
    public var launchPolicy: LaunchPolicy { launches.policy }

    func launchFacts(_ app: AppID) -> LaunchPolicy.AppFacts {
        let i = Int(app.index)
        return LaunchPolicy.AppFacts(modes: apps[i].manifest.backgroundModes, forceQuit: apps[i].forceQuit,
                                     backgroundAppRefresh: apps[i].manifest.backgroundAppRefresh)
    }

    /// rules §11, the one entry point: may `app` be launched — or, if it is
    /// suspended, woken — into the background now for `cause`? Every
    /// subsystem that launches or wakes an app for background work asks
    /// this first and, when refused, records `verdict.reason` in its trace
    /// event (a `push.drop`, a `task.defer`, …). `taskIdentifier` is for
    /// bgTask launches (checked against `BGTaskSchedulerPermittedIdentifiers`).
    public func launchVerdict(for app: AppID, cause: LaunchCause, taskIdentifier: String? = nil) -> LaunchVerdict {
        var facts = launchFacts(app)
        if let identifier = taskIdentifier {
            facts.taskIdentifierPermitted = apps[Int(app.index)].manifest.permittedTaskIdentifiers.contains(identifier)
        }
        return launches.verdict(for: cause, app: facts, device: device)
    }

    /// One rule of the launch policy for `app` (the scheduler's
    /// ForceQuitPolicy and FirstUnlockPolicy are these rules). Cheap: the
    /// scheduler asks on its hot path.
    func launchRule(_ rule: LaunchPolicy.Rule, _ app: AppID, cause: LaunchCause) -> LaunchRefusal? {
        let i = Int(app.index)
        switch rule {
        case .firstUnlock: return LaunchPolicy.firstUnlock(cause, unlockedSinceBoot: device.unlockedSinceBoot)
        case .forceQuit: return launchPolicy.forceQuit(cause, forceQuit: apps[i].forceQuit)
        case .backgroundAppRefresh:
            return LaunchPolicy.backgroundAppRefresh(cause, device: device.backgroundAppRefresh,
                                                     app: apps[i].manifest.backgroundAppRefresh)
        case .multitasking, .mode: return launchPolicy.check(rule, cause: cause, app: launchFacts(app), device: device)
        }
    }

    /// Carries out an allowed verdict: launches a not-running app straight
    /// into the background for `cause`, or resumes a suspended one (it gets
    /// a fresh background window); a running app is left as it is. Ask
    /// `launchVerdict` first — this does not. Returns whether the app runs
    /// afterwards: a launch can be killed at once (over its memory limit),
    /// and then there is no process to hand the work to.
    @discardableResult
    public mutating func wakeIntoBackground(_ app: AppID, cause: LaunchCause) -> Bool {
        switch apps[Int(app.index)].state {
        case .notRunning: launch(app, cause: cause)
        case .suspended:
            noteLaunch(app, cause, woken: true)
            resume(app)
            openBackgroundWindow(app)
        case .active, .inactive, .background: break
        }
        return apps[Int(app.index)].state.isRunning
    }
}

extension Engine {
    /// How many of an app's recent verdicts its dump keeps.
    static let recentLaunchesShown = 8

    /// The launch controller's recent verdicts for the app.
    public func launchControllerDump(of app: AppID) -> LaunchControllerDump {
        LaunchControllerDump(recent: launches.recent(of: app, limit: Self.recentLaunchesShown).map(LaunchControllerDump.Verdict.init))
    }

    /// The app was launched or woken for `cause`.
    @inline(__always) mutating func noteLaunch(_ app: AppID, _ cause: LaunchCause, woken: Bool) {
        launches.note(LaunchRecord(time: now, app: app, cause: cause, outcome: woken ? .woken : .launched, refusal: nil))
    }

    /// A launch or wake for `cause` was refused by the launch policy.
    mutating func noteRefusedLaunch(_ app: AppID, _ cause: LaunchCause, _ refusal: LaunchRefusal) {
        launches.note(LaunchRecord(time: now, app: app, cause: cause, outcome: .refused, refusal: refusal))
    }
}
