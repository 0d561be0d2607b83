/// rules §4 audio: while the app plays or records audibly in the background it
/// is not suspended; when playback stops it is suspended like any background
/// app. Without the `audio` mode, audio stops when the app leaves the front.
/// The app in front has audio priority: its audio interrupts a background
/// player (unless one of them mixes), and a background app cannot interrupt it.
/// Between background apps the newest non-mixable session wins.
/// The app's calls, forwarded to `LongRunningServicesController`, which decides.
extension Engine {
    /// `AVAudioSession.setActive(true)` and a player's `play()`: plays for
    /// `duration` (nil: until stopped). Returns false when iOS refuses
    /// (`AVAudioSession.ErrorCode.insufficientPriority` and friends).
    @discardableResult
    public mutating func startAudio(for app: AppID, duration: Nanoseconds?, category: AudioCategory = .playback,
                                    mixesWithOthers: Bool = false) -> Bool {
        let front = frontApp.flatMap { $0 != app ? $0 : nil }
        let started = services.startAudio(app, duration: duration, category: category, mixesWithOthers: mixesWithOthers,
                                          serviceView(of: app), name: bundleIdentifier(app), front: front,
                                          frontName: front.map { bundleIdentifier($0) } ?? "", now: now)
        apply(started.effects)
        return started.plays
    }

    /// The app stops its player (or deactivates its session).
    public mutating func stopAudio(for app: AppID) {
        apply(services.audioStopped(app, reason: "stopped by the app", serviceView(of: app)))
    }

    public func isPlayingAudio(_ app: AppID) -> Bool { services.apps[Int(app.index)].audio != nil }
}
