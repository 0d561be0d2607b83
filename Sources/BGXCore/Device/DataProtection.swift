/// rules §13, the seed (WWDC19 707): tasks usually run while the device is
/// locked, and files with complete data protection cannot be read then.
/// Apple Platform Security, "Data Protection classes" [D]:
/// - Complete Protection (class A, `NSFileProtectionComplete`): "Shortly
///   after the user locks a device (10 seconds, if the Require Password
///   setting is Immediately), the decrypted class key is discarded, rendering
///   all data in this class inaccessible until the user enters the passcode
///   again". The file "cannot be read from or written to while the device is
///   locked or booting" (FileProtectionType.complete).
/// - Protected Until First User Authentication (class C): like class A, but
///   the key stays in memory once the person has unlocked the device since boot.
/// - No Protection (class D): readable whenever the device is on.
/// Without a passcode no class key is wrapped by one: every file is readable.
public enum FileProtection: String, Sendable, CaseIterable, CustomStringConvertible, Codable {
    case complete
    case completeUntilFirstUserAuthentication
    case none

    public var description: String { rawValue }
}

/// What the system remembers of a file an app wrote (the store is the
/// device's disk: it survives the process, a kill and a reboot).
struct ProtectedFile: Sendable, Codable {
    var protection: FileProtection
    var bytes: Int64
}

/// The answer to a read or a write: done, or refused with iOS's error.
public enum FileAccess: Sendable, Equatable {
    case ok
    /// `NSFileReadNoPermissionError` (257) / `NSFileWriteNoPermissionError`
    /// (513), underlying POSIX EPERM: the class key is not available.
    case notPermitted(reason: String)
    /// `NSFileReadNoSuchFileError` (260).
    case noSuchFile
}

/// The profile's data-protection numbers.
public struct DataProtectionSettings: Sendable, Equatable, Codable {
    /// Class A keys are discarded this long after the lock [D] (Apple
    /// Platform Security: 10 s with Require Password set to Immediately).
    public var classKeyGracePeriod: Nanoseconds = Time.seconds(10)
    public init() {}
}

/// rules §13's data-protection policy at a moment: which classes' keys are
/// available, and why. No state of its own: the device's lock and passcode,
/// read by the engine, and the profile's grace period.
struct DataProtectionPolicy {
    var passcode: Bool
    var unlockedSinceBoot: Bool
    var locked: Bool
    var lockedSince: Nanoseconds?
    var now: Nanoseconds
    var settings: DataProtectionSettings
    /// Time of day at t = 0: the lock's moment is written as a time of day.
    var wallClockOffset: Nanoseconds

    /// Why a file of this class cannot be opened now; nil when it can.
    func refusal(_ protection: FileProtection) -> String? {
        guard passcode else { return nil }
        switch protection {
        case .none:
            return nil
        case .completeUntilFirstUserAuthentication:
            return unlockedSinceBoot ? nil : "the device has not been unlocked since it booted"
        case .complete:
            guard unlockedSinceBoot else { return "the device has not been unlocked since it booted" }
            guard locked, let since = lockedSince else { return nil }
            let grace = settings.classKeyGracePeriod
            if now < since + grace { return nil }
            return "the device is locked: class A keys were discarded \(Time.describe(grace)) after the lock at "
                + Time.wallClock(since + wallClockOffset, seconds: true)
        }
    }

    /// Why the file can be opened, in words, for the trace.
    func grant(_ protection: FileProtection) -> String {
        if !passcode { return "no passcode: files are not protected by one" }
        switch protection {
        case .none: return "no protection: readable whenever the device is on"
        case .completeUntilFirstUserAuthentication: return "unlocked since boot"
        case .complete:
            return locked ? "locked less than \(Time.describe(settings.classKeyGracePeriod)) ago" : "the device is unlocked"
        }
    }

    /// A write of a file of this class: the answer, and the words its trace line gives.
    func write(_ protection: FileProtection) -> (access: FileAccess, words: String) {
        if let refusal = refusal(protection) { return (.notPermitted(reason: refusal), refusal) }
        return (.ok, grant(protection))
    }

    /// A read of a file the app wrote (nil: no such file): the answer, and the words.
    func read(_ file: ProtectedFile?) -> (access: FileAccess, words: String) {
        guard let file else { return (.noSuchFile, "no such file") }
        if let refusal = refusal(file.protection) { return (.notPermitted(reason: refusal), refusal) }
        return (.ok, grant(file.protection))
    }
}

// The app's calls: the policy decides, the engine keeps the app's files and writes the trace.
extension Engine {
    private var dataProtection: DataProtectionPolicy {
        DataProtectionPolicy(passcode: device.passcode, unlockedSinceBoot: device.unlockedSinceBoot,
                             locked: device.locked, lockedSince: lockedSince, now: now,
                             settings: profile.dataProtection, wallClockOffset: wallClockOffset)
    }

    /// `UIApplication.isProtectedDataAvailable`: can class A (`complete`)
    /// data be read now? Unlocked, or locked less than the grace period ago,
    /// or no passcode. The one fact policies about protected data read.
    public var isProtectedDataAvailable: Bool { dataProtection.refusal(.complete) == nil }

    /// `Data.write(to:options:)` with a protection option. Fails like iOS
    /// when the class key is not available now.
    @discardableResult
    public mutating func writeFile(for app: AppID, path: String, protection: FileProtection, bytes: Int64 = 0) -> FileAccess {
        let p = text(path)
        let (access, words) = dataProtection.write(protection)
        if access == .ok { apps[Int(app.index)].files[p] = ProtectedFile(protection: protection, bytes: bytes) }
        apply(.trace(app, .fileWrite(path: p, protection: protection, ok: access == .ok, reason: text(words))))
        return access
    }

    /// `Data(contentsOf:)` of a file the app wrote.
    @discardableResult
    public mutating func readFile(for app: AppID, path: String) -> FileAccess {
        let p = text(path)
        let file = apps[Int(app.index)].files[p]
        let (access, words) = dataProtection.read(file)
        apply(.trace(app, .fileRead(path: p, protection: file?.protection, ok: access == .ok, reason: text(words))))
        return access
    }

    /// The protection class of a file the app wrote, if it exists.
    public func fileProtection(for app: AppID, path: String) -> FileProtection? {
        guard let p = texts.index[path] else { return nil }
        return apps[Int(app.index)].files[TextID(index: p)]?.protection
    }
}
