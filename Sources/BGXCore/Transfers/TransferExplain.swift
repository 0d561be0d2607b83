/// `bgx explain --app`: the transfer daemon's view of an app's background
/// sessions at a moment — what each transfer is doing, why it waits and
/// since when, when a running one will finish, and why results wait for the
/// app (SPEC §8: "why is my download waiting?" has an answer).
extension Engine {
    public func explainTransfers(app: AppID) -> String {
        let mine = transfers.tasks.filter { $0.app == app && !$0.delivered }
        let sessions = transfers.sessions.indices.filter { transfers.sessions[$0].app == app }
        guard !sessions.isEmpty else { return "" }
        var out = "background transfers of \(bundleIdentifier(app)) at \(when(now))\n"
        let running = transfers.tasks.reduce(0) { $0 + ($1.phase == .running ? 1 : 0) }
        for s in sessions {
            let session = transfers.sessions[s]
            let kind = session.newsstand ? "Newsstand downloads" : "background session"
            out += "  \(kind) '\(text(session.identifier))'\n"
            for task in mine where task.session == session.identifier {
                out += "    task \(task.id) (\(task.kind), \(task.bytes) bytes): "
                switch task.phase {
                case .running:
                    let left = projectedRemaining(task, running: running)
                    out += "running, \(left) bytes left at a 1/\(running) share of \(device.bandwidth) B/s"
                    if device.bandwidth > 0 {
                        let rest = TransferMath.mulDiv(left, Int64(running) * Time.nanosecondsPerSecond,
                                                       device.bandwidth, roundUp: true)
                        let (end, overflow) = now.addingReportingOverflow(rest)
                        out += overflow ? "; never finishes at this rate" : "; finishes at \(when(end)) if nothing changes"
                    }
                case .waiting, .stalled:
                    out += task.phase == .stalled ? "stalled" : "waiting"
                    if let wait = task.lastWait { out += ": " + describe(wait, task) }
                    if let since = task.waitingSince { out += " (since \(when(since)))" }
                    out += "; fails at \(when(task.created + task.resourceTimeout)) (timeoutIntervalForResource)"
                case .finished:
                    out += "finished (\(task.result ?? .success)), not yet delivered to the app"
                }
                out += "\n"
            }
            if let hold = session.lastHold, !undeliveredResults(s).isEmpty {
                out += "    results wait: \(hold)\n"
            }
        }
        return out
    }

    private func when(_ t: Nanoseconds) -> String { Time.wallClock(wall(t), seconds: true) }

    /// A running transfer's bytes left now (progress is settled only at events).
    func projectedRemaining(_ task: TransferTask, running: Int) -> Int64 {
        guard task.phase == .running, running > 0, device.network != .none, now > transfers.settledAt else {
            return task.remaining
        }
        let share = TransferMath.mulDiv(device.bandwidth, now - transfers.settledAt,
                                        Int64(running) * Time.nanosecondsPerSecond, roundUp: false)
        return max(0, task.remaining - share)
    }
}
