import BGXCore
import BGXPlist
import Foundation

/// Reads the Info.plist keys bgx cares about (rules §3), and what a scenario
/// app's handlers use, for `bgx check`.
public enum InfoPlist {
    public static func read(_ path: String) throws -> AppManifest {
        var notYetSupported: [ScenarioError] = []
        let manifest = try read(path, notYetSupported: &notYetSupported)
        if let first = notYetSupported.first { throw first }
        return manifest
    }

    /// Reads the manifest; the background modes bgx recognises but does not
    /// simulate yet are left out of it and said in `notYetSupported`.
    public static func read(_ path: String, notYetSupported: inout [ScenarioError]) throws -> AppManifest {
        let at = SourceLocation(file: path, line: 1, column: 1)
        let data = try ScenarioLimits.standard.contents(of: path)
        // What Foundation must not be handed: a binary plist with a set in it crashes it.
        if let problem = BinaryPropertyList.problem(in: data) { throw ScenarioError(at, "not an Info.plist: \(problem)") }
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            // Where it breaks, when it is XML; Foundation says only that it failed.
            if let problem = PlistSyntax.firstProblem(in: data) {
                throw ScenarioError(SourceLocation(file: path, line: problem.line, column: problem.column),
                                    "not a property list: \(problem.message)")
            }
            throw ScenarioError(at, "not a property list: \(error.localizedDescription)")
        }
        guard let dict = object as? [String: Any] else { throw ScenarioError(at, "the property list is not a dictionary") }
        // An XML plist's errors point at the key (or the string) they are about;
        // a binary one has no lines, so they point at its start.
        let text = String(decoding: data, as: UTF8.self)
        func location(ofKey key: String, string: String? = nil) -> SourceLocation {
            InfoPlist.location(ofKey: key, string: string, in: text, file: path) ?? at
        }
        let bundle = dict["CFBundleIdentifier"] as? String ?? (path as NSString).lastPathComponent
        var manifest = AppManifest(bundleIdentifier: bundle)
        if let raw = dict["UIBackgroundModes"] {
            guard let modes = raw as? [String] else {
                throw ScenarioError(location(ofKey: "UIBackgroundModes"),
                                    "UIBackgroundModes must be an array of strings\(found(raw))")
            }
            for name in modes {
                if let feature = ScenarioParser.futureModes[name] {
                    notYetSupported.append(ScenarioError(location(ofKey: "UIBackgroundModes", string: name),
                                                         "not yet supported: \(feature)"))
                    continue
                }
                guard let mode = BackgroundMode(rawValue: name) else {
                    var message = "unknown background mode '\(name)' in UIBackgroundModes"
                    if let guess = nearest(name, in: BackgroundMode.allCases.map(\.rawValue)) {
                        message += "; did you mean '\(guess)'?"
                    }
                    throw ScenarioError(location(ofKey: "UIBackgroundModes", string: name), message)
                }
                manifest.backgroundModes.insert(mode)
            }
        }
        if let raw = dict["BGTaskSchedulerPermittedIdentifiers"] {
            guard let ids = raw as? [String] else {
                throw ScenarioError(location(ofKey: "BGTaskSchedulerPermittedIdentifiers"),
                                    "BGTaskSchedulerPermittedIdentifiers must be an array of strings\(found(raw))")
            }
            manifest.permittedTaskIdentifiers = ids
        }
        if let raw = dict["UIApplicationExitsOnSuspend"] {
            guard let flag = raw as? Bool else {
                throw ScenarioError(location(ofKey: "UIApplicationExitsOnSuspend"),
                                    "UIApplicationExitsOnSuspend must be a boolean (<true/> or <false/>)\(found(raw))")
            }
            manifest.exitsOnSuspend = flag
        }
        return manifest
    }

    /// Where a key, or a string in the value after it, is written in an XML
    /// property list: enough to point an error at its line.
    static func location(ofKey key: String, string: String?, in text: String, file: String) -> SourceLocation? {
        guard let keyRange = text.range(of: "<key>\(key)</key>") else { return nil }
        var target = keyRange
        if let string, let valueRange = text.range(of: "<string>\(string)</string>", range: keyRange.upperBound..<text.endIndex) {
            target = valueRange
        }
        let before = text[..<target.lowerBound]
        let line = before.reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        let column = before.distance(from: before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex,
                                     to: before.endIndex) + 1
        return SourceLocation(file: file, line: line, column: column)
    }

    /// What a value of the wrong type is, for the message: `; found a string`.
    static func found(_ value: Any) -> String {
        let kind: String
        switch value {
        case is String: kind = "a string"
        case is Bool: kind = "a boolean"
        case is NSNumber: kind = "a number"
        case let array as [Any]: kind = array.allSatisfy({ $0 is String }) ? "an array" : "an array holding something other than strings"
        case is [String: Any]: kind = "a dictionary"
        case is Data: kind = "data"
        case is Date: kind = "a date"
        default: kind = "something else"
        }
        return "; found \(kind)"
    }

    /// The modes and task identifiers a scenario app's handlers use.
    public static func usage(of app: ScenarioApp.Spec) -> ManifestUsage {
        var usage = ManifestUsage()
        let ordered = app.handlers.sorted { $0.key.description < $1.key.description }
        for (handler, actions) in ordered {
            switch handler {
            case let .task(id), let .expire(id): usage.taskIdentifiers.append(id)
            case .performFetch: usage.modesUsed.append((.fetch, "the 'performFetch' handler"))
            case let .backgroundTransfer(session): usage.transferHandlers.append(session)
            case .accessory: usage.modesUsed.append((.externalAccessory, "the 'accessory' handler"))
            case .bluetooth:
                let mode: BackgroundMode = app.manifest.backgroundModes.contains(.bluetoothPeripheral)
                    ? .bluetoothPeripheral : .bluetoothCentral
                usage.modesUsed.append((mode, "the 'bluetooth' handler"))
            case .silentPush: usage.modesUsed.append((.remoteNotification, "the 'silentPush' handler"))
            case .voipPush, .voipSocket, .keepAlive: usage.modesUsed.append((.voip, "the '\(handler)' handler"))
            default: break
            }
            if case let .unsupported(name) = handler {
                let words = name.split(separator: " ").map(String.init)
                if let first = words.first, let mode = ScenarioParser.futureHandlers[first]?.mode {
                    usage.modesUsed.append((mode, "the '\(name)' handler"))
                }
                if words.count == 2, words[0] == "task" || words[0] == "expire" {
                    usage.taskIdentifiers.append(words[1])
                }
            }
            // After a `wait` the callback has returned: a submit there no longer holds up the launch.
            var launching = handler == .didFinishLaunching
            for a in actions {
                if case .wait = a.action { launching = false }
                switch a.action {
                case let .register(id): usage.taskIdentifiers.append(id)
                case let .submit(s):
                    usage.taskIdentifiers.append(s.identifier)
                    usage.submittedTaskIdentifiers.append(s.identifier)
                    if launching { usage.submitsDuringLaunch.append("line \(a.location.line)") }
                    if let mode = s.kind.requiredMode {
                        usage.modesUsed.append((mode, "'submit' (\(s.kind), line \(a.location.line))"))
                    }
                case let .submitContinued(r):
                    usage.taskIdentifiers.append(r.identifier)
                    usage.submittedTaskIdentifiers.append(r.identifier)
                case .setMinimumBackgroundFetchInterval(.some):
                    usage.modesUsed.append((.fetch, "setMinimumBackgroundFetchInterval (line \(a.location.line))"))
                case .playAudio:
                    usage.modesUsed.append((.audio, "'playAudio' (line \(a.location.line))"))
                case let .startLocation(service) where service == .standard:
                    // Significant-change and region monitoring work without the mode.
                    usage.modesUsed.append((.location, "'startLocation \(service)' (line \(a.location.line))"))
                case let .download(d):
                    usage.transferSessions.append(d.session)
                    if d.newsstand {
                        usage.modesUsed.append((.newsstandContent, "a Newsstand 'download' (line \(a.location.line))"))
                    }
                case let .createSession(session):
                    usage.transferSessions.append(session)
                case .reportCall:
                    usage.modesUsed.append((.voip, "'reportCall' (line \(a.location.line))"))
                case let .notify(n):
                    if case let .named(file) = n.content.sound {
                        usage.notificationSounds.append((file, "line \(a.location.line)"))
                    }
                case .setKeepAliveTimeout:
                    usage.modesUsed.append((.voip, "'setKeepAliveTimeout' (line \(a.location.line))"))
                default: break
                }
                if case let .unsupported(name, mode, identifier) = a.action {
                    if let mode { usage.modesUsed.append((mode, "'\(name)' (line \(a.location.line))")) }
                    if let identifier {   // a later issue's submit
                        usage.taskIdentifiers.append(identifier)
                        usage.submittedTaskIdentifiers.append(identifier)
                    }
                }
            }
        }
        return usage
    }
}
