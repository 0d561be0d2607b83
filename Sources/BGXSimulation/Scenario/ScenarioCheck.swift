import BGXCore

/// `bgx check` on a scenario file: every app's manifest against what its
/// handlers use (an extension's BGTaskScheduler use is its containing
/// app's, rules §5), the push mistakes, and features bgx would refuse to run.
public enum ScenarioCheck {
    public static func findings(_ scenario: Scenario) -> (findings: [ManifestFinding], notes: [String]) {
        var findings: [ManifestFinding] = []
        // Extensions by containing app, once: a pass over every app for each would be quadratic.
        let extensions = Dictionary(grouping: scenario.apps.filter { $0.manifest.extensionOf != nil },
                                    by: { $0.manifest.extensionOf! })
        for app in scenario.apps where app.manifest.extensionOf == nil {
            var usage = InfoPlist.usage(of: app)
            for ext in extensions[app.manifest.bundleIdentifier] ?? [] {
                let u = InfoPlist.usage(of: ext)
                usage.modesUsed += u.modesUsed
                usage.taskIdentifiers += u.taskIdentifiers
                usage.submittedTaskIdentifiers += u.submittedTaskIdentifiers
            }
            findings += ManifestCheck.check(app.manifest, usage: usage, profile: scenario.profile)
        }
        findings += PluginCheck.findings(scenario)
        findings += LaunchHandlerCheck.findings(scenario)
        findings += PushCheck.findings(scenario)
        findings += DataProtectionCheck.findings(scenario)
        let notes = ScenarioRun.unsupportedFeatures(scenario).map { "note: \($0.location): \($0.message)" }
        return (findings, notes)
    }
}
