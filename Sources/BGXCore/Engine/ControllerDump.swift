/// One controller's state for one app, as data and in words (AOSP's
/// `dumpControllerStateLocked`). `bgx explain` and the live host's `status`
/// are assembled from these: every controller says what it holds for the
/// app and why it decides what it decides, in one shape.
public protocol ControllerDump: Sendable, Encodable {
    /// The concern the controller owns, as a heading: "push", "notifications", …
    var concern: String { get }
    /// The state and its reasons in words, one line each; times are read by `when`.
    func lines(when: (Nanoseconds) -> String) -> [String]
}

extension Engine {
    /// Every controller's dump for the app, in a fixed order; a concern the
    /// app has not used (nothing held for it) is left out.
    public func controllerDumps(of app: AppID) -> [any ControllerDump] {
        var dumps: [any ControllerDump] = [pushControllerDump(of: app)]
        let notifications = notificationControllerDump(of: app)
        if !notifications.isEmpty { dumps.append(notifications) }
        if let transfers = transferControllerDump(of: app) { dumps.append(transfers) }
        let services = servicesControllerDump(of: app)
        if !services.isEmpty { dumps.append(services) }
        return dumps
    }
}
