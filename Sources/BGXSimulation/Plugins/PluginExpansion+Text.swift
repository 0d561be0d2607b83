import BGXCore

/// `bgx plugin FILE`: an app's plugin expanded, in words and as the handlers
/// a scenario could write by hand (the scenario language's own actions).
extension PluginExpansion {
    public func text(bundle: String) -> String {
        var lines = ["\(bundle) uses \(plugin.name)", "  read from: \(source)", "  tasks:"]
        if tasks.isEmpty { lines.append("    none: the script schedules nothing") }
        for t in tasks {
            var request = "\(t.kind == .appRefresh ? "BGAppRefreshTaskRequest" : "BGProcessingTaskRequest")"
            request += t.earliestBegin.map { ", earliestBeginDate \(Time.describe($0)) after submitting" } ?? ", no earliestBeginDate"
            if t.requiresNetworkConnectivity { request += ", requiresNetworkConnectivity" }
            if t.requiresExternalPower { request += ", requiresExternalPower" }
            lines.append("    \(t.role) — \(t.identifier): \(request); "
                         + (t.registeredAtLaunch ? "registered at launch" : "NOT registered at launch: iOS has no handler for it"))
            lines.append("      submitted again: \(t.resubmits)")
            lines.append("      on expiry: \(t.onExpiry)")
        }
        lines.append("  its native calls, as a scenario's handlers:")
        for entry in handlers {
            lines.append("    \(entry.handler):   # \(entry.why)")
            if entry.actions.isEmpty { lines.append("      []") }
            for a in entry.actions { lines.append("      - " + Self.yaml(a)) }
        }
        if !notes.isEmpty {
            lines.append("  notes:")
            for n in notes { lines.append("    - \(n)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An action as the scenario language writes it.
    public static func yaml(_ action: ScenarioApp.Action) -> String {
        switch action {
        case let .register(id): return "register: \(id)"
        case let .cancel(id): return "cancel: \(id)"
        case let .wait(d): return "wait: \(Time.describe(d))"
        case let .work(d): return "work: \(Time.describe(d))"
        case let .beginBackgroundTask(name): return "beginBackgroundTask: \(name)"
        case let .endBackgroundTask(name): return "endBackgroundTask: \(name)"
        case let .complete(.task(success)): return "complete: \(success)"
        case let .complete(.fetch(result)): return "complete: \(result)"
        case let .setMinimumBackgroundFetchInterval(interval):
            return "setMinimumBackgroundFetchInterval: " + (interval.map { $0 == 0 ? "minimum" : Time.describe($0) } ?? "never")
        case let .submit(s):
            var fields = ["identifier: \(s.identifier)", "type: \(s.kind)"]
            if let e = s.earliestBegin { fields.append("earliestBegin: \(Time.describe(e))") }
            if s.requiresNetworkConnectivity { fields.append("requiresNetworkConnectivity: true") }
            if s.requiresExternalPower { fields.append("requiresExternalPower: true") }
            return "submit: {" + fields.joined(separator: ", ") + "}"
        case let .notify(n): return "notify: {id: \(n.id)}"
        case let .download(d): return "download: {session: \(d.session), bytes: \(d.bytes)}"
        case let .allocate(bytes): return "allocate: \(bytes)B"
        default: return "\(action)"
        }
    }
}
