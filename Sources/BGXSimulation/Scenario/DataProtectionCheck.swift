import BGXCore

/// `bgx check` for data protection (rules §13, the seed: "tasks usually run
/// while the device is locked"): a BGTaskScheduler launch handler (or a
/// fetch, which also runs in the background) that reads a file the app
/// writes with `complete` protection will find it unreadable whenever the
/// device has been locked more than a few seconds.
public enum DataProtectionCheck {
    public static func findings(_ scenario: Scenario) -> [ManifestFinding] {
        var findings: [ManifestFinding] = []
        for app in scenario.apps {
            var complete: Set<String> = []
            for actions in app.handlers.values {
                for a in actions {
                    if case let .writeFile(path, .complete) = a.action { complete.insert(path) }
                }
            }
            guard !complete.isEmpty else { continue }
            let background = app.handlers.keys.filter {
                switch $0 {
                case .task, .expire, .performFetch: true
                default: false
                }
            }.sorted { $0.description < $1.description }
            for handler in background {
                for a in app.handlers[handler] ?? [] {
                    guard case let .readFile(path) = a.action, complete.contains(path) else { continue }
                    findings.append(.init(severity: .warning, message:
                        "\(app.manifest.bundleIdentifier): the '\(handler)' handler reads \(path) (\(a.location)), "
                        + "which the app writes with complete protection; background work usually runs while the "
                        + "device is locked, when such a file cannot be read — write it with "
                        + "completeUntilFirstUserAuthentication"))
                }
            }
        }
        return findings
    }
}
