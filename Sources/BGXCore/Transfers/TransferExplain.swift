/// `bgx explain --app`: the transfer controller's view of an app's background
/// sessions at a moment, read from its dump — what each transfer is doing,
/// why it waits and since when, when a running one will finish, and why
/// results wait for the app (rules §8: "why is my download waiting?" has an answer).
extension Engine {
    public func explainTransfers(app: AppID) -> String {
        guard let dump = transferControllerDump(of: app), !dump.sessions.isEmpty else { return "" }
        func when(_ t: Nanoseconds) -> String { Time.wallClock(wall(t), seconds: true) }
        var out = "background transfers of \(bundleIdentifier(app)) at \(when(now))\n"
        for line in dump.sessionLines(when: when) { out += "  " + line + "\n" }
        return out
    }
}
