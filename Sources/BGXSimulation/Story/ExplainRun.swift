import BGXCore

/// `bgx explain` on a scenario: the engine's explanation at a moment, plus
/// what only the scenario and the rest of the run know — where the scenario
/// submits the identifier, and when the task actually started after the
/// moment (rules §6: "why hasn't my task run?" and "when will it?").
public struct ExplainedMoment {
    public var tasks: [TaskExplanation]
    /// `explain --app`: what each controller holds for the app at the
    /// moment, as data (`Engine.controllerDumps(of:)`) and as its section
    /// in words — the app's transfers, pushes, fetch standing, continued
    /// processing, recent launches, … whatever controllers there are.
    public var dumps: [any ControllerDump]
    public var sections: [ExplainSection]
}

extension ScenarioRun {
    /// Runs to `moment`, explains the identifiers (every one the app
    /// permits, submitted or has a history for, when nil), then runs on to
    /// the scenario's end to see when each started.
    public func explain(app: AppID, identifiers: [String]?, at moment: Nanoseconds) -> ExplainedMoment {
        run(until: moment)
        let engine = device.engine
        let names = identifiers ?? engine.taskIdentifiers(of: app)
        var tasks = names.map { engine.explainTask(app: app, identifier: $0) }
        var result = ExplainedMoment(tasks: [], dumps: engine.controllerDumps(of: app), sections: engine.explainSections(of: app))
        for k in tasks.indices { tasks[k].submittedBy = Self.submitters(of: tasks[k].identifier, in: scenario) }
        let seen = device.trace.count
        if moment < scenario.duration, device.keepsTrace {
            run(until: scenario.duration)
            let renderer = device.renderer
            for event in device.trace[seen...] where event.app == app && event.traceKind == .taskStart {
                var identifier = "", reason = ""
                for (name, value) in renderer.fields(of: event) {
                    guard case let .string(s) = value else { continue }
                    if name == "identifier" { identifier = s } else if name == "reason" { reason = s }
                }
                for k in tasks.indices where tasks[k].identifier == identifier && tasks[k].startedInRun == nil {
                    tasks[k].startedInRun = (event.time, reason)
                }
            }
        }
        for k in tasks.indices { tasks[k].runEnd = scenario.duration }
        result.tasks = tasks
        return result
    }

    /// Where the scenario submits an identifier: each handler with a
    /// `submit` of it, as "the HANDLER handler of APP (FILE:LINE)".
    public static func submitters(of identifier: String, in scenario: Scenario) -> [String] {
        var found: [(SourceLocation, String)] = []
        for app in scenario.apps {
            for (handler, actions) in app.handlers {
                for a in actions {
                    guard case let .submit(s) = a.action, s.identifier == identifier else { continue }
                    found.append((a.location, "the \(handler) handler of \(app.manifest.bundleIdentifier) (\(a.location))"))
                }
            }
        }
        return found.sorted { ($0.0.line, $0.0.column) < ($1.0.line, $1.0.column) }.map(\.1)
    }
}
