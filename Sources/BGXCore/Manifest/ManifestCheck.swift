/// `bgx check`: lints an app's Info.plist keys against what its code uses
/// (rules §3, §5).
public struct ManifestFinding: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case error, warning }
    public var severity: Severity
    public var message: String
    /// `FILE:LINE:COLUMN` of what the finding is about, when it has one place.
    public var location: String?
    public var description: String {
        "\(severity.rawValue): " + (location.map { "\($0): " } ?? "") + message
    }
    public init(severity: Severity, message: String, location: String? = nil) {
        self.severity = severity
        self.message = message
        self.location = location
    }
}

/// What an app's code was seen to use.
public struct ManifestUsage: Sendable, Equatable {
    /// Modes required by what the code does, each with the use that needs it.
    public var modesUsed: [(mode: BackgroundMode, use: String)] = []
    /// BGTaskScheduler identifiers registered or submitted.
    public var taskIdentifiers: [String] = []
    /// The identifiers of `taskIdentifiers` the code submits: only a submit
    /// says whether a task is app refresh (`fetch`) or processing.
    public var submittedTaskIdentifiers: [String] = []
    /// Where the app submits BGTaskScheduler requests while launching (a lint, rules §5).
    public var submitsDuringLaunch: [String] = []
    /// Background sessions the app transfers on, and those it has a
    /// `handleEventsForBackgroundURLSession` handler for (rules §8).
    public var transferSessions: [String] = []
    public var transferHandlers: [String] = []
    /// Sound files notifications name, each with where (rules §9).
    public var notificationSounds: [(file: String, place: String)] = []
    public var known: Bool
    public init(known: Bool = true) { self.known = known }

    public static func == (a: ManifestUsage, b: ManifestUsage) -> Bool {
        a.known == b.known && a.taskIdentifiers == b.taskIdentifiers
            && a.modesUsed.map(\.mode) == b.modesUsed.map(\.mode) && a.modesUsed.map(\.use) == b.modesUsed.map(\.use)
    }
}

public enum ManifestCheck {
    /// Findings for one app. With `usage.known == false` (a bare Info.plist)
    /// only what the manifest says of itself can be checked.
    public static func check(_ manifest: AppManifest, usage: ManifestUsage,
                             profile: PolicyProfile = .modern) -> [ManifestFinding] {
        var findings: [ManifestFinding] = []
        let app = manifest.bundleIdentifier
        let usesScheduler = manifest.backgroundModes.contains(.processing) || manifest.backgroundModes.contains(.fetch)
        if manifest.backgroundModes.contains(.processing) && manifest.permittedTaskIdentifiers.isEmpty {
            findings.append(.init(severity: .error, message:
                "\(app): UIBackgroundModes has 'processing' but BGTaskSchedulerPermittedIdentifiers is missing; "
                + "every BGTaskScheduler.submit will fail with notPermitted"))
        }
        // A wildcard identifier (`com.example.export.*`) is for continued processing, which needs no mode (iOS 26).
        let needsMode = manifest.permittedTaskIdentifiers.contains { !$0.hasSuffix(".*") }
        if needsMode && !usesScheduler {
            findings.append(.init(severity: .error, message:
                "\(app): BGTaskSchedulerPermittedIdentifiers is set but UIBackgroundModes has neither 'fetch' "
                + "nor 'processing'; submitting these tasks fails with notPermitted"))
        }
        if manifest.exitsOnSuspend && !manifest.backgroundModes.isEmpty {
            findings.append(.init(severity: .warning, message:
                "\(app): UIApplicationExitsOnSuspend is set, so the background modes "
                + manifest.backgroundModes.map(\.rawValue).sorted().joined(separator: ", ") + " are never used"))
        }
        guard usage.known else { return findings }
        var reported = Set<BackgroundMode>()
        for (mode, use) in usage.modesUsed where !manifest.backgroundModes.contains(mode) && !reported.contains(mode) {
            reported.insert(mode)
            findings.append(.init(severity: .error, message:
                "\(app): \(use) needs UIBackgroundModes '\(mode.rawValue)', which is not declared"))
        }
        func permitted(_ identifier: String) -> Bool {
            manifest.permittedTaskIdentifiers.contains(identifier) || manifest.wildcardIdentifier(matching: identifier) != nil
        }
        for identifier in Set(usage.taskIdentifiers).sorted() where !permitted(identifier) {
            findings.append(.init(severity: .error, message:
                "\(app): task identifier '\(identifier)' is not in BGTaskSchedulerPermittedIdentifiers; "
                + "register returns false and submit throws notPermitted"))
        }
        for place in usage.submitsDuringLaunch {
            findings.append(.init(severity: .warning, message:
                "\(app): BGTaskScheduler.submit is synchronous and blocks its caller; submitting in "
                + "didFinishLaunching (\(place)) slows the launch — submit from a background queue or later"))
        }
        let sessions = Set(usage.transferSessions)
        for handled in Set(usage.transferHandlers).sorted() where !sessions.contains(handled) && !sessions.isEmpty {
            findings.append(.init(severity: .warning, message:
                "\(app): the backgroundTransfer handler is for session '\(handled)', but the app transfers on "
                + sessions.sorted().map { "'\($0)'" }.joined(separator: ", ")
                + "; when those finish the app will not recreate them, and their results wait (identifier mismatch)"))
        }
        for (file, place) in usage.notificationSounds {
            guard let reason = BundleSound.fallbackReason(for: file, in: manifest.sounds,
                                                          maximumLength: PolicyProfile.modern.notifications.maximumAlertSoundLength)
            else { continue }
            findings.append(.init(severity: .warning, message: "\(app): the notification sound at \(place): \(reason)"))
        }
        var used = Set(usage.modesUsed.map(\.mode))
        // A task registered but never submitted has no type the code shows:
        // either mode may be the one it needs, so neither is called unused.
        if !Set(usage.taskIdentifiers).subtracting(usage.submittedTaskIdentifiers).isEmpty {
            used.formUnion([.fetch, .processing])
        }
        // The system itself puts `voip` to use: it relaunches the app at boot
        // (after the first unlock) and watches its VoIP socket (rules §4, §11).
        if profile.push.relaunchVoIPAppsAtBoot { used.insert(.voip) }
        for mode in manifest.backgroundModes.sorted(by: { $0.rawValue < $1.rawValue }) where !used.contains(mode) {
            findings.append(.init(severity: .warning, message:
                "\(app): UIBackgroundModes declares '\(mode.rawValue)' but nothing in the app uses it "
                + "(App Review rejects unused modes)"))
        }
        return findings
    }
}
