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
                findings += completionWindowFindings(app, profile: scenario.profile)
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
            // Without multitasking no app enters the background, where a background task's time runs.
            if scenario.device.multitasking { findings += backgroundTaskFindings(app, profile: scenario.profile) }
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
    /// before its time is up. With an expiration handler that does not complete
    /// it either, iOS kills the app; with none set, the system ends the task
    /// unsuccessfully — no kill, but the work never reports done.
    static func completionFindings(_ app: ScenarioApp.Spec, registered: [String], profile: PolicyProfile) -> [ManifestFinding] {
        let bundle = app.manifest.bundleIdentifier
        var kinds: [String: BGTaskKind] = [:]
        for (_, actions) in sorted(app) {
            for a in actions { if case let .submit(s) = a.action, kinds[s.identifier] == nil { kinds[s.identifier] = s.kind } }
        }
        var findings: [ManifestFinding] = []
        var seen = Set<String>()
        // An identifier not permitted is never registered (register returns false): nothing launches it.
        for id in registered where seen.insert(id).inserted && app.manifest.permittedTaskIdentifiers.contains(id) {
            guard let kind = kinds[id] else { continue }   // never submitted here: never launched
            let budget = kind == .processing ? profile.scheduler.processingBudget : profile.scheduler.appRefreshBudget
            let expire = app.handlers[.expire(id)]
            if expire?.contains(where: isComplete) == true { continue }
            let registration = registrations(app).launch.first { $0.identifier == id }!.location
            let place = app.handlerLocations[.task(id)] ?? registration
            let why: String
            if let actions = app.handlers[.task(id)] {
                guard let late = lateCompletion(actions, within: budget) else { continue }
                why = late == 0 ? "the 'task \(id)' handler never calls 'complete'"
                    : "the 'task \(id)' handler calls 'complete' only after \(Time.describe(late)), past its \(Time.describe(budget))"
            } else {
                why = "'\(id)' is registered and submitted but has no 'task \(id)' handler, so nothing calls setTaskCompleted"
            }
            let fix = "fix: end 'task \(id)' with '- complete: true' and give 'expire \(id)' '- complete: false'"
            if expire != nil {
                findings.append(.init(severity: .error, message:
                    "\(bundle): \(why), and its 'expire \(id)' handler does not complete it either; iOS kills the app "
                    + "when its \(Time.describe(budget)) are up (taskNotCompleted) — \(fix)", location: "\(place)"))
            } else {
                findings.append(.init(severity: .warning, message:
                    "\(bundle): \(why); with no expiration handler the system ends each launch unsuccessfully at "
                    + "expiry, and the work never reports done — \(fix)", location: "\(place)"))
            }
        }
        return findings
    }

    /// When a handler's `complete` comes at or past `limit` of work and waits: its moment, 0 for never; nil when in time.
    static func lateCompletion(_ actions: [ScenarioApp.LocatedAction], within limit: Nanoseconds) -> Nanoseconds? {
        var elapsed: Nanoseconds = 0
        for a in actions {
            if isComplete(a) { return elapsed < limit ? nil : elapsed }
            switch a.action {
            case let .work(d), let .wait(d): elapsed += d
            case .exit: return nil   // the process ends: nothing is owed
            default: break
            }
        }
        return 0
    }

    /// `performFetch` and `silentPush` call their completion handler within 30 s, or the app is killed
    /// (completionHandlerTimeout). A silent-push handler that never completes is PushCheck's.
    static func completionWindowFindings(_ app: ScenarioApp.Spec, profile: PolicyProfile) -> [ManifestFinding] {
        let bundle = app.manifest.bundleIdentifier
        var findings: [ManifestFinding] = []
        for (handler, limit) in [(ScenarioApp.Handler.performFetch, profile.scheduler.fetchTimeout),
                                 (.silentPush, profile.push.completionTimeout)] {
            guard let actions = app.handlers[handler], let late = lateCompletion(actions, within: limit) else { continue }
            if late == 0 && handler == .silentPush { continue }
            let why = late == 0 ? "never calls 'complete'" : "calls 'complete' only after \(Time.describe(late))"
            findings.append(.init(severity: .error, message:
                "\(bundle): the '\(handler)' handler \(why); in the background iOS kills the app \(Time.describe(limit)) "
                + "after it is called (completionHandlerTimeout) — fix: call '- complete: newData' (or noData, failed) "
                + "within \(Time.describe(limit))", location: "\(app.handlerLocations[handler] ?? app.location)"))
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
                // Begun again before it is ended: the name now holds the second task, and nothing ends the first.
                let rest = actions[(i + 1)...]
                if let again = rest.firstIndex(where: { $0.action == .beginBackgroundTask(name) }),
                   !rest[..<again].contains(where: { $0.action == .endBackgroundTask(name) }) {
                    findings.append(.init(severity: .error, message:
                        "\(bundle): the background task '\(name)' is begun again (line \(actions[again].location.line)) before it is "
                        + "ended; the name then holds the second task, nothing ends this one, and iOS kills the app "
                        + "\(Time.describe(budget)) into the background (backgroundTaskTimeout) — fix: end it first, "
                        + "or give each task its own name", location: "\(a.location)"))
                    continue
                }
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
