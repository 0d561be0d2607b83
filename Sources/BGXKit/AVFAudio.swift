import BGXApp
import BGXCore
import Foundation

// AVFAudio's background part under iOS's names: the session's category
// decides whether the app's audio keeps it running in the background.

public typealias AVAudioSession = AudioSession

extension AudioSession {
    public struct Mode: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
    }
    public struct SetActiveOptions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// The mode is kept by iOS for processing; bgx's rules read only the category and options.
    public func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        try setCategory(category, options: options)
    }

    public func setActive(_ active: Bool, options: SetActiveOptions) throws {
        try setActive(active)
    }
}
