/// rules §4 audio: while the app plays or records audibly in the background it
/// is not suspended; when playback stops it is suspended like any background
/// app. Without the `audio` mode, audio stops when the app leaves the front.
/// The app in front has audio priority: its audio interrupts a background
/// player (unless one of them mixes), and a background app cannot interrupt it.
/// Between background apps the newest non-mixable session wins.
extension Engine {
    /// `AVAudioSession.setActive(true)` and a player's `play()`: plays for
    /// `duration` (nil: until stopped). Returns false when iOS refuses
    /// (`AVAudioSession.ErrorCode.insufficientPriority` and friends).
    @discardableResult
    public mutating func startAudio(for app: AppID, duration: Nanoseconds?, category: AudioCategory = .playback,
                                    mixesWithOthers: Bool = false) -> Bool {
        let i = Int(app.index)
        guard apps[i].state.isRunning else { return false }
        let inFront = apps[i].state.isForeground
        let mixes = mixesWithOthers || category.mixesByDefault
        if !inFront {
            let front = frontApp.flatMap { $0 != app ? $0 : nil }
            if let refusal = services.backgroundAudioRefusal(
                category: category, mixes: mixes, hasAudioMode: apps[i].manifest.backgroundModes.contains(.audio),
                front: front, frontName: { bundleIdentifier($0) }) {
                record(app, .audioRefuse(reason: text(refusal)))
                return false
            }
        }
        let number = services.startAudio(app, category: category, mixes: mixes)
        setAssertion(.audio, true, i)
        record(app, .audioStart(category: category, duration: duration))
        noteAudioOrAccessoryAssertion(app)
        if let duration {
            queue.push(.audioEnd(app, ticket(app, number)), at: now + max(0, duration))
        }
        // A non-mixable session interrupts every other non-mixable one: the
        // front app's always, and a background app's those of the other
        // background apps (the front app's it could not, see above).
        if !mixes {
            let reason = inFront
                ? "interrupted: \(bundleIdentifier(app)) in front started playing audio (the foreground app has audio priority)"
                : "interrupted: \(bundleIdentifier(app)) started playing audio that does not mix with others"
            // Only a process plays: the resident apps, in index order.
            for other in residentApps.sorted().map({ AppID(index: $0) }) where other != app {
                guard let theirs = services.apps[Int(other.index)].audio, !theirs.mixesWithOthers else { continue }
                stopAudio(other, reason: reason)
                apps[Int(other.index)].jobs.append(.service(.audioInterruptionBegan))
                pump(other)
            }
        }
        return true
    }

    /// The app stops its player (or deactivates its session).
    public mutating func stopAudio(for app: AppID) {
        guard services.apps[Int(app.index)].audio != nil else { return }
        stopAudio(app, reason: "stopped by the app")
        suspendIfThreadFree(app)
    }

    public func isPlayingAudio(_ app: AppID) -> Bool { services.apps[Int(app.index)].audio != nil }

    mutating func stopAudio(_ app: AppID, reason: String) {
        services.apps[Int(app.index)].audio = nil
        setAssertion(.audio, false, Int(app.index))
        record(app, .audioStop(reason: text(reason)))
        noteAudioOrAccessoryAssertion(app)
    }

    mutating func audioEnded(_ app: AppID) {
        stopAudio(app, reason: "playback finished")
        suspendIfThreadFree(app)
    }
}
