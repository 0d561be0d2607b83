import BGXCore

/// `bgx check` for the mistakes that make iOS kill an app before its work
/// runs (rules §2, §5): a request submitted with no launch handler
/// registered (noLaunchHandler), registration outside launch or twice, a
/// `task ID` / `expire ID` handler for an identifier nothing registers, a
/// launch handler that never completes its task (taskNotCompleted), a
/// background task never ended (backgroundTaskTimeout), and identifiers
/// named for another app. Each finding is located and says the fix.
public enum LaunchHandlerCheck {
    public static func findings(_ scenario: Scenario) -> [ManifestFinding] {
        var findings: [ManifestFinding] = []
        let bundles = Set(scenario.apps.map(\.manifest.bundleIdentifier))
        // Who registers what at launch, by bundle: a submit from another app cannot use it.
        var registeredBy: [String: [String]] = [:]
        for app in scenario.apps {
            for id in registrations(app).launch.map(\.identifier) {
                registeredBy[id, default: []].append(app.manifest.bundleIdentifier)
            }
        }
        let byBundle = Dictionary(scenario.apps.map { ($0.manifest.bundleIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
        for app in scenario.apps {
            let bundle = app.manifest.bundleIdentifier
            // An extension's requests are its containing app's: that app's launch registers their handlers.
            let owner = app.manifest.extensionOf.flatMap { byBundle[$0] } ?? app
            let (launch, later) = registrations(owner)
            let registered = launch.map(\.identifier)
            func isRegistered(_ id: String) -> Bool {
                registered.contains(id) || registered.contains { $0.hasSuffix(".*") && id.hasPrefix(String($0.dropLast())) }
            }
            if app.manifest.extensionOf == nil {
                findings += registrationFindings(app, launch: launch, later: later)
                findings += handlerFindings(app, registered: registered)
                findings += completionFindings(app, registered: registered, profile: scenario.profile)
            }
            for (id, location) in submits(app) where !isRegistered(id) {
                guard !later.contains(where: { $0.identifier == id }) else { continue }   // reported as registered late
                let others = (registeredBy[id] ?? []).filter { $0 != owner.manifest.bundleIdentifier }
                let elsewhere = others.isEmpty ? ""
                    : " (\(others.joined(separator: ", ")) registers it, but launch handlers are each app's own)"
                findings.append(.init(severity: .error, message:
                    "\(bundle): 'submit' of '\(id)' with no launch handler registered for it\(elsewhere); iOS kills the app "
                    + "(noLaunchHandler) — fix: add '- register: \(id)' to \(owner.manifest.bundleIdentifier)'s didFinishLaunching "
                    + "and a 'task \(id)' handler", location: "\(location)"))
            }
            findings += backgroundTaskFindings(app, profile: scenario.profile)
            // An identifier spelled with another app's bundle is that app's (reverse-DNS, as Apple's samples name them).
            for id in app.manifest.permittedTaskIdentifiers where !id.hasPrefix(bundle + ".") {
                guard let other = bundles.filter({ $0 != bundle && id.hasPrefix($0 + ".") }).max(by: { $0.count < $1.count }),
                      other != app.manifest.extensionOf else { continue }
                findings.append(.init(severity: .warning, message:
                    "\(bundle): permits '\(id)', an identifier named for \(other); the two apps' tasks are separate, and "
                    + "a request this app submits runs only this app's handler — fix: name it '\(bundle).…'",
                    location: "\(app.location)"))
            }
        }
        return findings
    }

    typealias Registration = (identifier: String, location: SourceLocation)

    /// The app's `register` actions: in didFinishLaunching, and anywhere else.
    static func registrations(_ app: ScenarioApp.Spec) -> (launch: [Registration], later: [(identifier: String, handler: ScenarioApp.Handler, location: SourceLocation)]) {
        var launch: [Registration] = []
        var later: [(identifier: String, handler: ScenarioApp.Handler, location: SourceLocation)] = []
        for (handler, actions) in sorted(app) {
            for a in actions {
                guard case let .register(id) = a.action else { continue }
                if handler == .didFinishLaunching { launch.append((id, a.location)) } else { later.append((id, handler, a.location)) }
            }
        }
        return (launch, later)
    }

    /// Every identifier the app submits, each with its first place.
    static func submits(_ app: ScenarioApp.Spec) -> [(String, SourceLocation)] {
        var seen = Set<String>()
        var result: [(String, SourceLocation)] = []
        for (_, actions) in sorted(app) {
            for a in actions {
                let id: String
                switch a.action {
                case let .submit(s): id = s.identifier
                case let .submitContinued(r): id = r.identifier
                default: continue
                }
                if seen.insert(id).inserted { result.append((id, a.location)) }
            }
        }
        return result
    }

    /// Handlers in the order they are written, so findings come out in file order.
    static func sorted(_ app: ScenarioApp.Spec) -> [(ScenarioApp.Handler, [ScenarioApp.LocatedAction])] {
        app.handlers.sorted { a, b in
            let la = app.handlerLocations[a.key]?.line ?? a.value.first?.location.line ?? 0
            let lb = app.handlerLocations[b.key]?.line ?? b.value.first?.location.line ?? 0
            return (la, a.key.description) < (lb, b.key.description)
        }
    }

    static func registrationFindings(_ app: ScenarioApp.Spec, launch: [Registration],
                                     later: [(identifier: String, handler: ScenarioApp.Handler, location: SourceLocation)]) -> [ManifestFinding] {
        let bundle = app.manifest.bundleIdentifier
        var findings: [ManifestFinding] = []
        for r in later {
            findings.append(.init(severity: .error, message:
                "\(bundle): 'register: \(r.identifier)' in \(r.handler), after launch has finished; iOS kills the app "
                + "(registrationAfterLaunch) — fix: move it to didFinishLaunching", location: "\(r.location)"))
        }
        var seen = Set<String>()
        for r in launch where !seen.insert(r.identifier).inserted {
            findings.append(.init(severity: .error, message:
                "\(bundle): '\(r.identifier)' is registered a second time; iOS kills the app "
                + "(launchHandlerRegisteredTwice) — fix: register each identifier once", location: "\(r.location)"))
        }
        return findings
    }

    /// `task ID` and `expire ID` for identifiers nothing registers: the system never calls them.
    static func handlerFindings(_ app: ScenarioApp.Spec, registered: [String]) -> [ManifestFinding] {
        let bundle = app.manifest.bundleIdentifier
        var findings: [ManifestFinding] = []
        for (handler, _) in sorted(app) {
            let id: String
            switch handler {
            case let .task(i), let .expire(i): id = i
            default: continue
            }
            guard !registered.contains(id) else { continue }
            let place = app.handlerLocations[handler].map { "\($0)" } ?? "\(app.location)"
            let fix = nearest(id, in: registered).map { "did you mean '\($0)'?" }
                ?? "fix: add '- register: \(id)' to didFinishLaunching"
            findings.append(.init(severity: .error, message:
                "\(bundle): the '\(handler)' handler is for '\(id)', which didFinishLaunching never registers, so iOS "
                + "never calls it; \(fix)", location: place))
        }
        return findings
    }

    /// A registered, submitted task whose launch handler never reaches `complete`
    /// before its time is up, with no expiration handler that completes it.
    static func completionFindings(_ app: ScenarioApp.Spec, registered: [String], profile: PolicyProfile) -> [ManifestFinding] {
        let bundle = app.manifest.bundleIdentifier
        var kinds: [String: BGTaskKind] = [:]
        for (_, actions) in sorted(app) {
            for a in actions { if case let .submit(s) = a.action, kinds[s.identifier] == nil { kinds[s.identifier] = s.kind } }
        }
        var findings: [ManifestFinding] = []
        var seen = Set<String>()
        for id in registered where seen.insert(id).inserted {
            guard let kind = kinds[id] else { continue }   // never submitted here: never launched
            let budget = kind == .processing ? profile.scheduler.processingBudget : profile.scheduler.appRefreshBudget
            let expireCompletes = app.handlers[.expire(id)]?.contains(where: isComplete) ?? false
            guard !expireCompletes else { continue }
            let registration = registrations(app).launch.first { $0.identifier == id }!.location
            guard let actions = app.handlers[.task(id)] else {
                findings.append(.init(severity: .error, message:
                    "\(bundle): '\(id)' is registered and submitted but has no 'task \(id)' handler, so its launch handler "
                    + "never calls setTaskCompleted; iOS kills the app when its \(Time.describe(budget)) are up "
                    + "(taskNotCompleted) — fix: add 'task \(id)' ending with '- complete: true', and 'expire \(id)' "
                    + "with '- complete: false'", location: "\(registration)"))
                continue
            }
            let place = app.handlerLocations[.task(id)] ?? registration
            var elapsed: Nanoseconds = 0
            var completedAt: Nanoseconds?
            for a in actions {
                switch a.action {
                case let .work(d), let .wait(d): elapsed += d
                default: break
                }
                if isComplete(a) { completedAt = elapsed; break }
            }
            if let completedAt, completedAt < budget { continue }
            let why = completedAt == nil ? "never calls 'complete'"
                : "calls 'complete' only after \(Time.describe(completedAt!)), past its \(Time.describe(budget))"
            findings.append(.init(severity: .error, message:
                "\(bundle): the 'task \(id)' handler \(why), and no 'expire \(id)' handler completes it; iOS kills the "
                + "app (taskNotCompleted) — fix: end 'task \(id)' with '- complete: true' and add 'expire \(id)' with "
                + "'- complete: false'", location: "\(place)"))
        }
        return findings
    }

    static func isComplete(_ a: ScenarioApp.LocatedAction) -> Bool {
        if case .complete = a.action { true } else { false }
    }

    /// `beginBackgroundTask: NAME` never ended, or ended only after its time is up,
    /// with no `backgroundTaskExpired NAME` handler that ends it (backgroundTaskTimeout).
    static func backgroundTaskFindings(_ app: ScenarioApp.Spec, profile: PolicyProfile) -> [ManifestFinding] {
        let bundle = app.manifest.bundleIdentifier
        var findings: [ManifestFinding] = []
        let budget = profile.backgroundTaskBudget
        func ends(_ actions: [ScenarioApp.LocatedAction], _ name: String) -> Bool {
            actions.contains { $0.action == .endBackgroundTask(name) }
        }
        let endedSomewhere = Set(app.handlers.values.flatMap { $0 }.compactMap { a -> String? in
            if case let .endBackgroundTask(name) = a.action { name } else { nil }
        })
        for (handler, actions) in sorted(app) {
            for (i, a) in actions.enumerated() {
                guard case let .beginBackgroundTask(name) = a.action else { continue }
                if ends(app.handlers[.backgroundTaskExpired(name)] ?? [], name) { continue }
                let fix = "fix: end it with '- endBackgroundTask: \(name)', and add a 'backgroundTaskExpired \(name)' "
                    + "handler that ends it too"
                guard endedSomewhere.contains(name) else {
                    findings.append(.init(severity: .error, message:
                        "\(bundle): the background task '\(name)' begun in \(handler) is never ended; iOS kills the app "
                        + "\(Time.describe(budget)) into the background (backgroundTaskTimeout) — \(fix)",
                        location: "\(a.location)"))
                    continue
                }
                // Ended later in the same handler: the time between must fit in the budget.
                var elapsed: Nanoseconds = 0
                for b in actions[(i + 1)...] {
                    if b.action == .endBackgroundTask(name) { break }
                    if case let .work(d) = b.action { elapsed += d }
                    if case let .wait(d) = b.action { elapsed += d }
                }
                guard elapsed >= budget, ends(Array(actions[(i + 1)...]), name) else { continue }
                findings.append(.init(severity: .error, message:
                    "\(bundle): the background task '\(name)' begun in \(handler) is ended only after "
                    + "\(Time.describe(elapsed)), and it has \(Time.describe(budget)) in the background; iOS kills the "
                    + "app (backgroundTaskTimeout) — \(fix)", location: "\(a.location)"))
            }
        }
        return findings
    }
}
