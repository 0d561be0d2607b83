import BGXCore
import Yams

/// An app's handlers (`on:`) and the actions in them, each word declared once
/// with what reads it.
extension ScenarioParser {
    // MARK: Handlers

    /// What a handler's name reads: `didBecomeActive` alone, `task ID` with its argument.
    enum HandlerForm {
        case plain(ScenarioApp.Handler)
        /// The argument's description (`a task identifier`), how it is written
        /// (`IDENTIFIER`), and the handler it makes.
        case argument(String, String, (String) -> ScenarioApp.Handler)
    }

    static let handlers: [ScenarioWord<HandlerForm>] = [
        .init("didFinishLaunching", .plain(.didFinishLaunching)), .init("didBecomeActive", .plain(.didBecomeActive)),
        .init("willResignActive", .plain(.willResignActive)), .init("didEnterBackground", .plain(.didEnterBackground)),
        .init("willEnterForeground", .plain(.willEnterForeground)), .init("willTerminate", .plain(.willTerminate)),
        .init("localNotification", .plain(.localNotification)), .init("memoryWarning", .plain(.memoryWarning)),
        .init("location", .plain(.location)), .init("accessory", .plain(.accessory)), .init("bluetooth", .plain(.bluetooth)),
        .init("silentPush", .plain(.silentPush)), .init("voipPush", .plain(.voipPush)),
        .init("voipSocket", .plain(.voipSocket)), .init("keepAlive", .plain(.keepAlive)),
        .init("performFetch", .plain(.performFetch)),
        .init("task", .argument("a task identifier", "IDENTIFIER", ScenarioApp.Handler.task)),
        .init("expire", .argument("a task identifier", "IDENTIFIER", ScenarioApp.Handler.expire)),
        .init("backgroundTransfer", .argument("a session identifier", "SESSION", ScenarioApp.Handler.backgroundTransfer)),
        .init("backgroundTaskExpired", .argument("a task name", "NAME", ScenarioApp.Handler.backgroundTaskExpired)),
    ]
    /// Handlers of later issues: recognised, not yet simulated.
    static let futureHandlers: [String: (feature: String, mode: BackgroundMode?, takesArgument: Bool)] = [:]

    func handlerName(_ name: String, node: Node) throws -> ScenarioApp.Handler {
        let words = name.split(separator: " ", maxSplits: 1).map(String.init)
        let first = words.first ?? name
        if let handler = Self.handlers.word(first) {
            switch handler.read {
            case let .plain(h):
                // `didBecomeActive x` is no handler (as before: the whole name is looked up).
                if words.count == 1 { return h }
            case let .argument(what, written, make):
                guard words.count == 2 else { throw err(node, "'\(first)' needs \(what): '\(first) \(written)'") }
                return make(words[1])
            }
        }
        if let future = Self.futureHandlers[first] {
            if future.takesArgument && words.count != 2 { throw err(node, "'\(first)' needs an argument: '\(first) NAME'") }
            if !future.takesArgument && words.count != 1 { throw err(node, "'\(first)' takes no argument") }
            return .unsupported(name)
        }
        throw unknown(node, "handler", first, (Self.handlers.map(\.name) + Array(Self.futureHandlers.keys)).sorted())
    }

    // MARK: Actions

    /// An action as written: `- exit`, or `- work: 2s`.
    struct ActionInput {
        let name: String
        let argument: Node?
        let nameNode: Node
        let context: MomentContext
        let device: DeviceState

        /// The argument, which the action needs.
        func arg(_ p: ScenarioParser, _ what: String) throws -> Node {
            guard let a = argument else { throw p.err(nameNode, "'\(name)' needs \(what)") }
            return a
        }
        /// The argument as one value.
        func scalar(_ p: ScenarioParser, _ what: String) throws -> String { try p.scalar(try arg(p, what), name) }
        /// `- stopAudio` and `- stopAudio: true` mean the same.
        func noArgument(_ p: ScenarioParser) throws {
            if let a = argument, (try? p.scalar(a, name)) != "true" { throw p.err(a, "'\(name)' takes no argument") }
        }
    }

    typealias ActionWord = ScenarioWord<(ScenarioParser, ActionInput) throws -> ScenarioApp.Action>

    /// An action without an argument.
    static func bare(_ name: String, _ action: ScenarioApp.Action) -> ActionWord {
        ActionWord(name) { p, a in
            try a.noArgument(p)
            return action
        }
    }

    /// An action whose argument is one value.
    static func valued(_ name: String, _ what: String, _ make: @escaping (String) -> ScenarioApp.Action) -> ActionWord {
        ActionWord(name) { p, a in make(try a.scalar(p, what)) }
    }

    /// `holdLock` / `releaseLock`: `- holdLock` takes the app's one lock; `- holdLock: db.sqlite` names it.
    static func lock(_ name: String, _ verb: String, _ make: @escaping (String) -> ScenarioApp.Action) -> ActionWord {
        ActionWord(name) { p, a in
            let lock = try a.argument.map { try p.scalar($0, name) }.flatMap { $0 == "true" ? nil : $0 } ?? "default"
            if lock == "false", let node = a.argument {
                throw p.err(node, "'\(name): false' \(verb) nothing; leave the action out, or name the lock")
            }
            return make(lock)
        }
    }

    /// `startLocation` / `stopLocation: standard | significant | region`.
    static func locationService(_ name: String, _ make: @escaping (LocationService) -> ScenarioApp.Action) -> ActionWord {
        ActionWord(name) { p, a in
            let node = try a.arg(p, "standard, significant or region")
            let word = try p.scalar(node, name)
            guard let service = LocationService(rawValue: word) else {
                throw p.unknown(node, "location service", word, LocationService.allCases.map(\.rawValue))
            }
            return make(service)
        }
    }

    static let actions: [ActionWord] = [
        ActionWord("work") { p, a in .work(try p.duration(try a.arg(p, "a duration"), a.name)) },
        ActionWord("wait") { p, a in .wait(try p.duration(try a.arg(p, "a duration"), a.name)) },
        valued("beginBackgroundTask", "a task name", ScenarioApp.Action.beginBackgroundTask),
        valued("endBackgroundTask", "a task name", ScenarioApp.Action.endBackgroundTask),
        ActionWord("notify") { p, a in .notify(try p.notify(try a.arg(p, "{id, body, after | at, repeat}"), a.context)) },
        valued("cancelNotification", "a notification id", ScenarioApp.Action.cancelNotification),
        bare("exit", .exit),
        ActionWord("register") { p, a in .register(try a.scalar(p, "a task identifier")) },
        ActionWord("submit") { p, a in try p.submit(try a.arg(p, "{identifier, type, earliestBegin, …}")) },
        ActionWord("cancel") { p, a in .cancel(try a.scalar(p, "a task identifier")) },
        ActionWord("complete") { p, a in
            let node = try a.arg(p, "true, false, newData, noData or failed")
            let v = try p.scalar(node, a.name)
            switch v {
            case "true": return .complete(.task(success: true))
            case "false": return .complete(.task(success: false))
            default:
                guard let result = BackgroundFetchResult.allCases.first(where: { $0.description == v }) else {
                    throw p.unknown(node, "completion", v, ["true", "false", "newData", "noData", "failed"])
                }
                return .complete(.fetch(result))
            }
        },
        ActionWord("setMinimumBackgroundFetchInterval") { p, a in
            let node = try a.arg(p, "a duration, 'minimum' or 'never'")
            switch try p.scalar(node, a.name) {
            case "never": return .setMinimumBackgroundFetchInterval(nil)
            case "minimum": return .setMinimumBackgroundFetchInterval(0)
            default: return .setMinimumBackgroundFetchInterval(try p.duration(node, a.name))
            }
        },
        ActionWord("allocate") { p, a in .allocate(try p.allocation(try a.arg(p, "a size like 50MB (or -50MB to free)"), a.device)) },
        bare("useGPU", .useGPU),
        lock("holdLock", "holds", ScenarioApp.Action.holdLock),
        lock("releaseLock", "releases", ScenarioApp.Action.releaseLock),
        bare("showSensitiveContent", .showSensitiveContent(true)),
        bare("hideSensitiveContent", .showSensitiveContent(false)),
        bare("requestSceneSessionRefresh", .requestSceneSessionRefresh),
        bare("makeUnsavedChanges", .unsavedChanges(true)),
        bare("saveChanges", .unsavedChanges(false)),
        ActionWord("playAudio") { p, a in
            guard let node = a.argument, case .mapping = node else {
                try a.noArgument(p)
                return .playAudio(nil)
            }
            var length: Nanoseconds = 0
            try p.read(Self.playAudioKeys, node, into: &length)
            return .playAudio(length)
        },
        bare("stopAudio", .stopAudio),
        locationService("startLocation", ScenarioApp.Action.startLocation),
        locationService("stopLocation", ScenarioApp.Action.stopLocation),
        ActionWord("download") { p, a in .download(try p.download(try a.arg(p, "{session, bytes, discretionary, …}"))) },
        valued("createSession", "a session identifier", ScenarioApp.Action.createSession),
        bare("reportCall", .reportCall),
        ActionWord("setKeepAliveTimeout") { p, a in
            .setKeepAliveTimeout(try p.duration(try a.arg(p, "a duration (at least 600s)"), a.name))
        },
        ActionWord("writeFile") { p, a in try p.writeFile(try a.arg(p, "{path, protection}")) },
        valued("readFile", "a file path", ScenarioApp.Action.readFile),
        ActionWord("progress") { p, a in
            var d = (completed: Int64(0), total: Int64(0))
            try p.read(Self.progressKeys, try a.arg(p, "{completed, total}"), into: &d)
            return .progress(completed: d.completed, total: d.total)
        },
        ActionWord("updateTitle") { p, a in
            var d = (title: "", subtitle: "")
            try p.read(Self.updateTitleKeys, try a.arg(p, "{title, subtitle}"), into: &d)
            return .updateTitle(title: d.title, subtitle: d.subtitle)
        },
        ActionWord("performExpiringActivity") { p, a in try p.expiringActivity(try a.arg(p, "{reason, work}")) },
        ActionWord("requestAuthorization") { p, a in
            // `- requestAuthorization` asks for all three; `- requestAuthorization: [alert, sound]` for those.
            .requestAuthorization(try a.argument.map { try p.presentation($0, a.name) } ?? [.alert, .sound, .badge])
        },
    ]
    static let futureActions: [String: String] = [:]

    /// `playAudio: {for: DURATION}`; without it, audio plays until `stopAudio`.
    static let playAudioKeys = ScenarioSection<Nanoseconds>(what: "playAudio", keys: [
        ScenarioKey("for", needed: { "'playAudio' takes {\($0): DURATION}, or nothing to play until stopAudio" }) {
            p, node, key, length in
            length = try p.duration(node, key)
            guard length > 0 else { throw p.err(node, "\(key): audio plays for longer than 0") }
        },
    ])

    /// `progress: {completed, total}` of a continued-processing task.
    static let progressKeys = ScenarioSection<(completed: Int64, total: Int64)>(what: "progress", keys: [
        ScenarioKey("completed", needed: { _ in "'progress' needs {completed, total}" }) { p, node, key, d in
            d.completed = try p.count(node, key)
        },
        ScenarioKey("total", needed: { _ in "'progress' needs {completed, total}" }) { p, node, key, d in
            d.total = try p.count(node, key)
        },
    ], declaredOrder: true)

    /// A whole number ≥ 0 of `progress`.
    func count(_ node: Node, _ key: String) throws -> Int64 {
        guard let v = Int64(try scalar(node, key)), v >= 0 else {
            throw err(node, "progress: completed and total are whole numbers ≥ 0")
        }
        return v
    }

    /// `updateTitle: {title, subtitle}` of a continued-processing task.
    static let updateTitleKeys = ScenarioSection<(title: String, subtitle: String)>(what: "updateTitle", keys: [
        ScenarioKey("title", needed: { _ in "'updateTitle' needs {title, subtitle}" }) { p, node, key, d in
            d.title = try p.scalar(node, key)
        },
        ScenarioKey("subtitle", needed: { _ in "'updateTitle' needs {title, subtitle}" }) { p, node, key, d in
            d.subtitle = try p.scalar(node, key)
        },
    ], declaredOrder: true)

    func actions(_ node: Node, _ context: MomentContext, device: DeviceState) throws -> [ScenarioApp.LocatedAction] {
        try sequence(node, "a handler's actions").map { try action($0, context, device: device) }
    }

    func action(_ node: Node, _ context: MomentContext, device: DeviceState) throws -> ScenarioApp.LocatedAction {
        let name: String
        let argument: Node?
        let nameNode: Node
        switch node {
        case .scalar:
            name = try scalar(node, "an action"); argument = nil; nameNode = node
        case let .mapping(m):
            guard m.count == 1, let (k, v) = m.first else {
                throw err(node, "an action is one 'name: argument' pair; start another '-' item for the next one")
            }
            name = try scalar(k, "an action name"); argument = v; nameNode = k
        default:
            throw err(node, "an action is a name or a 'name: argument' pair")
        }
        let input = ActionInput(name: name, argument: argument, nameNode: nameNode, context: context, device: device)
        let action: ScenarioApp.Action
        if let word = Self.actions.word(name) {
            action = try word.read(self, input)
        } else {
            guard Self.futureActions[name] != nil else {
                throw unknown(nameNode, "action", name, Self.actions.map(\.name) + Array(Self.futureActions.keys).sorted())
            }
            action = try futureAction(name, argument)
        }
        return ScenarioApp.LocatedAction(action: action, location: location(nameNode))
    }

    /// Later issues' actions, read enough for `bgx check` to know the modes
    /// they need.
    func futureAction(_ name: String, _ argument: Node?) throws -> ScenarioApp.Action {
        .unsupported(name: name, mode: nil, taskIdentifier: nil)
    }
}
