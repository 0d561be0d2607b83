/// `bgx explain --app`: the transfer controller's view of an app's background
/// sessions at a moment, read from its dump — what each transfer is doing,
/// why it waits and since when, when a running one will finish, and why
/// results wait for the app (rules §8: "why is my download waiting?" has an answer).
extension Engine {
    public func explainTransfers(app: AppID) -> String {
        TransferController.explain(transferControllerDump(of: app), app: bundleIdentifier(app),
                                   when: { Time.wallClock(wall($0), seconds: true) }, now: now)
    }
}
