import BGXCore

extension AppRuntime {
    /// Settings › General › Background App Refresh, for the device and for
    /// this app: `UIApplication.backgroundRefreshStatus` is `.available` only
    /// when both are on.
    public var backgroundAppRefreshAllowed: Bool {
        device.withEngine { $0.device.backgroundAppRefresh && $0.manifest(app).backgroundAppRefresh }
    }
}
