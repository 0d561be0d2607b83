import BGXCore

/// `bgx check` for pushes (rules §7, §4): the mistakes USER-CASES lists —
/// background pushes sent with priority 10, a silent-push handler that never
/// calls its completion handler, a VoIP push handler that reports its call
/// only after it has returned (or never).
public enum PushCheck {
    public static func findings(_ scenario: Scenario) -> [ManifestFinding] {
        var findings: [ManifestFinding] = []
        for entry in scenario.timeline {
            guard case let .push(app, push) = entry.event, push.type == .background, push.priority != 5 else { continue }
            findings.append(.init(severity: .warning, message:
                "\(app): the background push at \(entry.location) has priority \(push.priority) (APNs' default when "
                + "none is given); it never launches a terminated app — send background pushes with priority 5"))
        }
        for app in scenario.apps {
            let bundle = app.manifest.bundleIdentifier
            if let actions = app.handlers[.silentPush], !actions.contains(where: { if case .complete = $0.action { true } else { false } }) {
                findings.append(.init(severity: .warning, message:
                    "\(bundle): the 'silentPush' handler (\(actions.first?.location ?? app.location)) never calls "
                    + "'complete'; in the background the app is terminated 30 s after each push (completionHandlerTimeout)"))
            }
            if let actions = app.handlers[.voipPush] {
                let report = actions.firstIndex { $0.action == .reportCall }
                let wait = actions.firstIndex { if case .wait = $0.action { true } else { false } }
                if report == nil || (wait != nil && wait! < report!) {
                    findings.append(.init(severity: .warning, message:
                        "\(bundle): the 'voipPush' handler (\(actions.first?.location ?? app.location)) "
                        + (report == nil ? "never reports a call" : "reports its call only after a 'wait', when it has returned")
                        + "; from iOS 13 the app is killed (0xbaadca11) and, after repeated failures, gets no VoIP pushes"))
                }
            }
        }
        return findings
    }
}
