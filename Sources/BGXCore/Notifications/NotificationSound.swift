/// rules §9: a notification's sound is the default one or a file in the app's
/// bundle. The system sound facility plays only Linear PCM, MA4 (IMA/ADPCM),
/// µ-Law and a-Law, shorter than 30 s [D UNNotificationSound]; for any other
/// file — missing, another format, too long — iOS plays the default sound
/// instead [D for the length; O for the rest: "falls back to the default
/// system notification sound"], and bgx says why in the trace.
public enum NotificationSound: Sendable, Equatable, Codable {
    case `default`
    case named(String)
}

/// How a bundled audio file is encoded.
public enum AudioFormat: String, Sendable, CaseIterable, Codable {
    case linearPCM, ima4, ulaw, alaw, mp3, aac, alac

    /// The four the system sound facility plays [D].
    public var playsAsAlertSound: Bool {
        switch self {
        case .linearPCM, .ima4, .ulaw, .alaw: true
        case .mp3, .aac, .alac: false
        }
    }

    public var displayName: String {
        switch self {
        case .linearPCM: "Linear PCM"
        case .ima4: "MA4 (IMA/ADPCM)"
        case .ulaw: "µ-Law"
        case .alaw: "a-Law"
        case .mp3: "MP3"
        case .aac: "AAC"
        case .alac: "Apple Lossless"
        }
    }
}

/// A sound file in the app's bundle (or `Library/Sounds`).
public struct BundleSound: Sendable, Equatable, Codable {
    public var file: String
    public var format: AudioFormat
    public var length: Nanoseconds

    public init(file: String, format: AudioFormat, length: Nanoseconds = Time.seconds(1)) {
        self.file = file
        self.format = format
        self.length = length
    }
}

extension BundleSound {
    /// Why the default sound plays instead of `file`, from a bundle holding
    /// `sounds`; nil when `file` plays.
    public static func fallbackReason(for file: String, in sounds: [BundleSound], maximumLength: Nanoseconds) -> String? {
        guard let bundled = sounds.first(where: { $0.file == file }) else {
            let known = sounds.isEmpty ? "it has none" : "it has " + sounds.map(\.file).joined(separator: ", ")
            return "no sound file '\(file)' in the app's bundle (\(known)): the default sound plays"
        }
        guard bundled.format.playsAsAlertSound else {
            return "'\(file)' is \(bundled.format.displayName); alert sounds must be Linear PCM, "
                + "MA4 (IMA/ADPCM), µ-Law or a-Law: the default sound plays"
        }
        guard bundled.length < maximumLength else {
            return "'\(file)' lasts \(Time.describe(bundled.length)); alert sounds must be shorter "
                + "than \(Time.describe(maximumLength)): the default sound plays"
        }
        return nil
    }
}
