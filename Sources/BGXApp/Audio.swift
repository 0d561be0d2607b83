import BGXCore
import Foundation

/// `AVAudioSession` (rules §4): one per process. Only the playback and
/// recording categories keep sounding in the background, and only with the
/// `audio` mode.
public final class AudioSession {
    public typealias Category = AudioCategory
    public struct CategoryOptions: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public static let mixWithOthers = CategoryOptions(rawValue: 1)
    }

    let connection: SystemConnection
    public private(set) var category: Category = .soloAmbient
    public private(set) var categoryOptions: CategoryOptions = []
    public private(set) var isActive = false
    /// Observes `AVAudioSession.interruptionNotification` (type began): the
    /// app in front took the audio; this app's playback has stopped.
    public var interruptionHandler: (() -> Void)?

    init(connection: SystemConnection) { self.connection = connection }

    /// `AVAudioSession.interruptionNotification`: the app in front took the
    /// audio; `userInfo[AVAudioSessionInterruptionTypeKey]` is `.began`.
    public static let interruptionNotification = Notification.Name("AVAudioSessionInterruptionNotification")
    public static let interruptionTypeKey = "AVAudioSessionInterruptionTypeKey"

    /// The session of the app whose code is running.
    public static func sharedInstance() -> AudioSession { Application.shared.audioSession }

    public func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        self.category = category
        categoryOptions = options
    }

    /// Deactivating stops the app's audio.
    public func setActive(_ active: Bool) throws {
        isActive = active
        if !active { connection.stopAudio() }
    }
}

/// A player in the shape of `AVAudioPlayer`, reduced to what the system
/// sees: audible output for a while.
public final class AudioPlayer {
    let session: AudioSession
    public init(session: AudioSession = .sharedInstance()) { self.session = session }

    public var isPlaying: Bool { session.connection.isPlayingAudio }

    /// Plays for `seconds` (nil: until `stop()`), activating the session as
    /// `AVAudioPlayer.play()` does. False when iOS refuses (a background app
    /// without the `audio` mode, or the app in front holds the audio).
    @discardableResult
    public func play(for seconds: Double? = nil) -> Bool {
        if !session.isActive { try? session.setActive(true) }
        return session.connection.startAudio(seconds: seconds, category: session.category,
                                             mixesWithOthers: session.categoryOptions.contains(.mixWithOthers))
    }

    public func stop() { session.connection.stopAudio() }
}
