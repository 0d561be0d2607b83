/// `bgx explain --app`: "why hasn't my push arrived?" (rules §7, §4) — the
/// push controller's dump, with what the engine judges for it (the launch
/// policy, dasd's push policies, the device): what the held push and a
/// background push sent now would meet, and VoIP report failures.
extension Engine {
    /// The push controller's state for the app now, and what a push would meet.
    public func pushControllerDump(of app: AppID) -> PushControllerDump {
        var dump = pushes.dump(app, now: now, settings: profile.push)
        let i = Int(app.index)
        let modes = apps[i].manifest.backgroundModes
        func verdict(_ p: Push) -> String {
            if frontApp == app && apps[i].state.isRunning { return "delivered to the app in front" }
            switch backgroundPushGate(app, p) {
            case nil: return apps[i].state == .notRunning ? "delivered, launching the app (silentPush)" : "delivered"
            case let .hold(reason, retryAt):
                return "held: \(reason)" + (retryAt.map { "; retried at \(Time.wallClock(wall($0), seconds: true))" } ?? "")
            case let .drop(reason): return "dropped: \(reason)"
            }
        }
        dump.heldVerdict = dump.held.map(verdict)
        if modes.contains(.remoteNotification) { dump.backgroundPushNow = verdict(Push(type: .background, priority: 5)) }
        if modes.contains(.voip) {
            let services = servicesControllerDump(of: app)
            dump.voipFailures = services.voipFailures
            dump.voipFailureLimit = services.voipFailureLimit
        }
        return dump
    }

    public func explainPushes(app: AppID) -> String {
        pushControllerDump(of: app).explainSection(app: bundleIdentifier(app), at: Time.wallClock(wall(now), seconds: true)) {
            Time.wallClock(wall($0), seconds: true)
        }?.text ?? ""
    }
}
