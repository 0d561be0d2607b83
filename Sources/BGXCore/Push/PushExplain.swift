/// `bgx explain --app`: "why hasn't my push arrived?" (SPEC §7, §4) — the
/// push held for the app and what holds it, what a background push would
/// meet now, the throttle and budget spent, and VoIP report failures.
extension Engine {
    public func explainPushes(app: AppID) -> String {
        let i = Int(app.index)
        let modes = apps[i].manifest.backgroundModes
        let push = pushControllerDump(of: app)
        guard modes.contains(.remoteNotification) || modes.contains(.voip) || push.held != nil else { return "" }
        func when(_ t: Nanoseconds) -> String { Time.wallClock(wall(t), seconds: true) }
        func verdict(_ p: Push) -> String {
            if frontApp == app && apps[i].state.isRunning { return "delivered to the app in front" }
            switch backgroundPushGate(app, p) {
            case nil: return apps[i].state == .notRunning ? "delivered, launching the app (silentPush)" : "delivered"
            case let .hold(reason, retryAt): return "held: \(reason)" + (retryAt.map { "; retried at \(when($0))" } ?? "")
            case let .drop(reason): return "dropped: \(reason)"
            }
        }
        var out = "pushes to \(bundleIdentifier(app)) at \(when(now))\n"
        if let held = push.held, let since = push.heldSince {
            out += "  held: a \(held.type) push (priority \(held.priority)) since \(when(since)) — \(verdict(held))\n"
        }
        if modes.contains(.remoteNotification) {
            out += "  a background push (priority 5) now would be \(verdict(Push(type: .background, priority: 5)))\n"
            out += "  " + push.throttleText(when: when) + "\n"
        }
        if modes.contains(.voip) {
            let services = servicesControllerDump(of: app)
            out += "  VoIP: \(services.voipFailures) of \(services.voipFailureLimit) allowed failures to report a call"
            if services.voipFailures >= services.voipFailureLimit { out += " — VoIP pushes are no longer delivered" }
            out += "\n"
        }
        return out
    }
}
