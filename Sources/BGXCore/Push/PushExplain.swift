/// `bgx explain --app`: "why hasn't my push arrived?" (rules §7, §4) — the
/// push controller's dump, with what its gate judges under the conditions
/// now (the launch policy, dasd's push policies, the device): what the held
/// push and a background push sent now would meet. (VoIP report failures
/// are the long-running services'; the coordinator adds them.)
extension PushController {
    /// The controller's state for the app under these conditions, and what a push would meet.
    func dump(_ app: AppID, _ c: PushConditions, settings: PushSettings,
              modes: Set<BackgroundMode>) -> PushControllerDump {
        var dump = dump(app, now: c.now, settings: settings)
        func verdict(_ p: Push) -> String {
            if c.inFront { return "delivered to the app in front" }
            switch gate(app, p, c, settings: settings) {
            case nil: return c.state == .notRunning ? "delivered, launching the app (silentPush)" : "delivered"
            case let .hold(reason, retryAt):
                return "held: \(reason)"
                    + (retryAt.map { "; retried at \(Time.wallClock($0 + c.wallClockOffset, seconds: true))" } ?? "")
            case let .drop(reason): return "dropped: \(reason)"
            }
        }
        dump.heldVerdict = dump.held.map(verdict)
        if modes.contains(.remoteNotification) { dump.backgroundPushNow = verdict(Push(type: .background, priority: 5)) }
        return dump
    }
}
