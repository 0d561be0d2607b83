import BGXSimulation

/// A delegate method spelled differently from UIKit's is never called by
/// iOS, and the compiler says nothing: every method of the protocol is
/// optional. bgx reads the delegate type's methods from the executable's
/// symbols and names those that look like callbacks but match none.
enum DelegateSpelling {
    /// What UIKit calls and bgx delivers.
    static let backgroundCallbacks: [String] = [
        "application(_:willFinishLaunchingWithOptions:)", "application(_:didFinishLaunchingWithOptions:)",
        "applicationDidBecomeActive(_:)", "applicationWillResignActive(_:)", "applicationDidEnterBackground(_:)",
        "applicationWillEnterForeground(_:)", "applicationWillTerminate(_:)", "applicationDidReceiveMemoryWarning(_:)",
        "application(_:performFetchWithCompletionHandler:)",
        "application(_:handleEventsForBackgroundURLSession:completionHandler:)",
        "application(_:didReceiveRemoteNotification:fetchCompletionHandler:)",
        "application(_:didRegisterForRemoteNotificationsWithDeviceToken:)",
        "application(_:didFailToRegisterForRemoteNotificationsWithError:)",
    ]
    /// UIKit's other delegate methods: real, but not about background execution, so bgx never calls them.
    static let otherCallbacks: Set<String> = [
        "application(_:open:options:)", "application(_:open:sourceApplication:annotation:)", "application(_:handleOpen:)",
        "application(_:continue:restorationHandler:)", "application(_:willContinueUserActivityWithType:)",
        "application(_:didFailToContinueUserActivityWithType:error:)", "application(_:didUpdate:)",
        "application(_:configurationForConnecting:options:)", "application(_:didDiscardSceneSessions:)",
        "application(_:supportedInterfaceOrientationsFor:)", "application(_:shouldAllowExtensionPointIdentifier:)",
        "application(_:performActionFor:completionHandler:)", "application(_:handleWatchKitExtensionRequest:reply:)",
        "application(_:shouldSaveSecureApplicationState:)", "application(_:shouldRestoreSecureApplicationState:)",
        "application(_:shouldSaveApplicationState:)", "application(_:shouldRestoreApplicationState:)",
        "application(_:viewControllerWithRestorationIdentifierPath:coder:)",
        "application(_:willEncodeRestorableStateWith:)", "application(_:didDecodeRestorableStateWith:)",
        "application(_:didReceiveRemoteNotification:)", "application(_:didReceive:)",
        "application(_:handlerFor:)", "application(_:handle:completionHandler:)",
        "application(_:userDidAcceptCloudKitShareWith:)", "applicationShouldRequestHealthAuthorization(_:)",
        "applicationSignificantTimeChange(_:)", "applicationProtectedDataWillBecomeUnavailable(_:)",
        "applicationProtectedDataDidBecomeAvailable(_:)", "application(_:shouldAutomaticallyLocalizeKeyCommands:)",
        "applicationDidFinishLaunching(_:)", "application(_:didChangeStatusBarFrame:)",
        "application(_:willChangeStatusBarFrame:)", "application(_:didRegister:)",
        "application(_:handleActionWithIdentifier:for:completionHandler:)",
        "application(_:handleActionWithIdentifier:forRemoteNotification:completionHandler:)",
        "application(_:handleActionWithIdentifier:for:withResponseInfo:completionHandler:)",
        "application(_:handleActionWithIdentifier:forRemoteNotification:withResponseInfo:completionHandler:)",
        "application(_:handleIntent:completionHandler:)", "application(_:didReceiveRemoteNotification:completionHandler:)",
    ]

    /// One warning per method of `type` that looks like a UIApplicationDelegate callback and is none.
    static func warnings(for type: Any.Type) -> [String] {
        let path = String(reflecting: type)   // Module.Type
        guard let dot = path.firstIndex(of: "."), !path.contains("<") else { return [] }
        let module = String(path[..<dot])
        let typeName = path.split(separator: ".").last.map(String.init) ?? ""
        let methods = demangledFunctions(withPrefix: "$s\(module.utf8.count)\(module)",
                                         containing: "\(typeName.utf8.count)\(typeName)")
            .filter { $0.hasPrefix(path + ".application") }
            .compactMap { selector(of: String($0.dropFirst(path.count + 1))) }
        let known = Set(backgroundCallbacks).union(otherCallbacks)
        return Set(methods).subtracting(known).sorted().map { method in
            let closest = backgroundCallbacks.min { distance(method, $0) < distance(method, $1) }!
            return "\(typeName).\(method) is not a UIApplicationDelegate method: iOS never calls it "
                + "(did you mean \(closest)?)"
        }
    }

    /// `name(label:label:)` from `name(label: Type, Type) -> Result`; nil when not a method.
    static func selector(of demangled: String) -> String? {
        guard let open = demangled.firstIndex(of: "(") else { return nil }
        let name = demangled[..<open]
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        var labels: [String] = [], argument = "", depth = 0
        var previous: Character = " "
        for character in demangled[open...] {
            switch character {
            case "(", "[", "<": depth += 1
            case ")", "]": depth -= 1
            case ">" where previous != "-": depth -= 1
            default: break
            }
            if depth == 0 { break }
            if depth == 1 && character == "," {
                labels.append(label(argument))
                argument = ""
            } else if !(depth == 1 && character == "(" && argument.isEmpty && labels.isEmpty && previous == " ") {
                argument.append(character)
            }
            previous = character
        }
        if !argument.trimmingCharacters(in: .whitespaces).isEmpty { labels.append(label(argument)) }
        return name + "(" + labels.map { $0 + ":" }.joined() + ")"
    }

    private static func label(_ argument: String) -> String {
        let text = argument.drop { $0 == "(" || $0 == " " }
        guard let colon = text.firstIndex(of: ":") else { return "_" }
        let candidate = text[..<colon]
        return candidate.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) && !candidate.isEmpty
            ? String(candidate) : "_"
    }

    /// Edit distance, to name the callback a misspelling most likely meant.
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var next = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                next[j] = min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            row = next
        }
        return row[b.count]
    }
}
