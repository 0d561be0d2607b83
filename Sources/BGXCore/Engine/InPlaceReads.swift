/// Reads for a host that holds the engine in place and hands it over
/// `inout` (`SimulatedDevice.withEngine`). Calling a non-mutating member
/// across modules copied the whole engine (about 1.6 KB) first, at every
/// delivery and every step; these read its fields where they are.
extension Engine {
    /// `processEpoch(of:)`, in place.
    public static func processEpoch(of app: AppID, in engine: inout Engine) -> UInt32 {
        engine.apps[Int(app.index)].epoch
    }

    /// `queue(of:for:)`, in place: only a launch handler asks its registration.
    public static func queue(of callback: Callback, for app: AppID, in engine: inout Engine) -> ExecutionQueue {
        switch callback {
        case .bgTask, .expiringActivity: engine.queue(of: callback, for: app)
        default: .main
        }
    }

    /// `nextEventTime`, in place.
    public static func nextEventTime(of engine: inout Engine) -> Nanoseconds? { engine.nextEventTime }
}
