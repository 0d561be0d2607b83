import BGXCore

/// A test's story told to an engine: inputs at moments, then what came of
/// them, in the trace's words.
extension ImmediateHost {
    /// Schedules each input at its moment (seconds from the start).
    public mutating func tell(_ story: [(seconds: Int, event: EngineEvent)]) {
        for (seconds, event) in story { engine.schedule(event, at: Time.seconds(seconds)) }
    }

    /// Installs an app and returns its identifier.
    public mutating func install(_ bundleIdentifier: String, modes: Set<BackgroundMode> = []) -> AppID {
        engine.install(AppManifest(bundleIdentifier: bundleIdentifier, backgroundModes: modes))
    }

    /// The app's state changes in the trace so far, as "from→to".
    public func stateChanges(of app: AppID) -> [String] {
        engine.trace.compactMap { event in
            guard event.app == app, case let .state(from, to, _) = event.kind else { return nil }
            return "\(from)→\(to)"
        }
    }
}
