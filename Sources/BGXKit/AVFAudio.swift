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

/// `AVAudioSessionInterruptionTypeKey`.
public let AVAudioSessionInterruptionTypeKey = AudioSession.interruptionTypeKey

extension AudioSession {
    /// `AVAudioSession.InterruptionType`. bgx's interruptions only begin: the
    /// app in front that took the audio never hands it back.
    public enum InterruptionType: UInt, Sendable {
        case began = 1, ended = 0
    }
}

/// `AVAudioPlayerDelegate`.
public protocol AVAudioPlayerDelegate: AnyObject {
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)
}

extension AVAudioPlayerDelegate {
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}
}

/// `AVAudioPlayer`, enough for background playback: `play()` makes the app
/// audible (activating the shared session, as AVFoundation does) and keeps
/// it running in the background while the session's category and the
/// `audio` mode allow, as on iOS; `pause()` and `stop()` end that. The
/// sound's length is read from a WAV file's header; any other file plays
/// until paused or stopped (`duration` 0). Bytes are not decoded.
open class AVAudioPlayer: NSObject {
    public let url: URL?
    public let data: Data?
    /// Seconds, from a WAV header (0: unknown).
    public let duration: TimeInterval
    public weak var delegate: AVAudioPlayerDelegate?
    /// -1: loop until stopped.
    public var numberOfLoops = 0
    /// Kept; bgx's rules do not read loudness.
    public var volume: Float = 1
    private let player: AudioPlayer
    /// The process that made the player (its clock, its main queue).
    private let connection: SystemConnection
    /// Where playback stands when not playing, and when the current play began.
    private var position: TimeInterval = 0
    private var playingSince: Date?
    /// Bumped by each play and stop, so a finish scheduled by an earlier play is ignored.
    private var generation = 0

    public init(contentsOf url: URL) throws {
        let data = try Data(contentsOf: url)
        self.url = url
        self.data = data
        duration = WAVLength.seconds(of: data) ?? 0
        player = AudioPlayer()
        connection = Application.shared.connection
        super.init()
    }

    public init(data: Data) throws {
        url = nil
        self.data = data
        duration = WAVLength.seconds(of: data) ?? 0
        player = AudioPlayer()
        connection = Application.shared.connection
        super.init()
    }

    private var now: Date { connection.now }

    /// Playing now: started, not paused or stopped, not interrupted, not over.
    public var isPlaying: Bool { playingSince != nil && player.isPlaying }

    public var currentTime: TimeInterval {
        get { playingSince.map { position + now.timeIntervalSince($0) } ?? position }
        set { position = newValue }
    }

    @discardableResult
    public func prepareToPlay() -> Bool { true }

    /// False when iOS refuses (in the background without the `audio` mode,
    /// or another app holds the audio).
    @discardableResult
    public func play() -> Bool {
        if isPlaying { return true }
        let remaining: TimeInterval? = numberOfLoops < 0 || duration == 0
            ? nil : max(0, duration * Double(numberOfLoops + 1) - position)
        // The player itself ends the sound (a main-thread job while the audio still holds the app
        // running), so its delegate hears of the end before the app can be suspended, as on iOS.
        guard player.play(for: nil) else { return false }
        playingSince = now
        generation += 1
        if let remaining {
            let playing = generation
            connection.asyncAfter(seconds: remaining) { [weak self] in
                guard let self, self.generation == playing, self.playingSince != nil, self.player.isPlaying else { return }
                self.playingSince = nil
                self.position = 0
                self.player.stop()
                self.delegate?.audioPlayerDidFinishPlaying(self, successfully: true)
            }
        }
        return true
    }

    public func pause() {
        guard playingSince != nil else { return }
        position = currentTime
        playingSince = nil
        generation += 1
        player.stop()
    }

    /// As `pause()`; the position stays where it is, as AVAudioPlayer's does.
    public func stop() { pause() }
}

/// A WAV file's length: its data chunk's size over the format's bytes per second.
enum WAVLength {
    static func seconds(of data: Data) -> TimeInterval? {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            return nil
        }
        func uint32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        var offset = 12
        var byteRate: UInt32?
        while offset + 8 <= bytes.count {
            let size = Int(uint32(offset + 4))
            if bytes[offset..<offset + 4].elementsEqual("fmt ".utf8), offset + 16 <= bytes.count {
                byteRate = uint32(offset + 16)
            } else if bytes[offset..<offset + 4].elementsEqual("data".utf8), let byteRate, byteRate > 0 {
                return Double(size) / Double(byteRate)
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }
}
