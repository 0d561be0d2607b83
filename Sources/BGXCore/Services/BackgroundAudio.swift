/// SPEC §4 audio: while the app plays or records audibly in the background it
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
            var refusal: String?
            if !apps[i].manifest.backgroundModes.contains(.audio) {
                refusal = "no 'audio' in UIBackgroundModes: a background app cannot start audio"
            } else if !category.playsInBackground {
                refusal = "the \(category) category does not play in the background"
            } else if !mixes, let front = frontApp, front != app, let theirs = apps[Int(front.index)].services.audio,
                      !theirs.mixesWithOthers {
                refusal = "\(bundleIdentifier(front)) in front is playing audio: a background app cannot interrupt it "
                    + "(insufficient priority)"
            }
            if let refusal {
                record(app, .audioRefuse(reason: text(refusal)))
                return false
            }
        }
        apps[i].services.audioNumber &+= 1
        let number = apps[i].services.audioNumber
        apps[i].services.audio = AudioPlayback(number: number, category: category, mixesWithOthers: mixes)
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
                guard let theirs = apps[Int(other.index)].services.audio, !theirs.mixesWithOthers else { continue }
                stopAudio(other, reason: reason)
                apps[Int(other.index)].jobs.append(.service(.audioInterruptionBegan))
                pump(other)
            }
        }
        return true
    }

    /// The app stops its player (or deactivates its session).
    public mutating func stopAudio(for app: AppID) {
        guard apps[Int(app.index)].services.audio != nil else { return }
        stopAudio(app, reason: "stopped by the app")
        suspendIfThreadFree(app)
    }

    public func isPlayingAudio(_ app: AppID) -> Bool { apps[Int(app.index)].services.audio != nil }

    mutating func stopAudio(_ app: AppID, reason: String) {
        apps[Int(app.index)].services.audio = nil
        record(app, .audioStop(reason: text(reason)))
        noteAudioOrAccessoryAssertion(app)
    }

    mutating func audioEnded(_ app: AppID) {
        stopAudio(app, reason: "playback finished")
        suspendIfThreadFree(app)
    }
}
