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

extension Engine {
    /// `UIApplication.isProtectedDataAvailable`: can class A (`complete`)
    /// data be read now? Unlocked, or locked less than the grace period ago,
    /// or no passcode. The one fact policies about protected data read.
    public var isProtectedDataAvailable: Bool { protectedDataRefusal(.complete) == nil }

    /// Why a file of this class cannot be opened now; nil when it can.
    func protectedDataRefusal(_ protection: FileProtection) -> String? {
        guard device.passcode else { return nil }
        switch protection {
        case .none:
            return nil
        case .completeUntilFirstUserAuthentication:
            return device.unlockedSinceBoot ? nil : "the device has not been unlocked since it booted"
        case .complete:
            guard device.unlockedSinceBoot else { return "the device has not been unlocked since it booted" }
            guard device.locked, let since = lockedSince else { return nil }
            let grace = profile.dataProtection.classKeyGracePeriod
            if now < since + grace { return nil }
            return "the device is locked: class A keys were discarded \(Time.describe(grace)) after the lock at "
                + Time.wallClock(wall(since), seconds: true)
        }
    }

    /// Why the file can be opened, in words, for the trace.
    func protectedDataGrant(_ protection: FileProtection) -> String {
        if !device.passcode { return "no passcode: files are not protected by one" }
        switch protection {
        case .none: return "no protection: readable whenever the device is on"
        case .completeUntilFirstUserAuthentication: return "unlocked since boot"
        case .complete:
            return device.locked ? "locked less than \(Time.describe(profile.dataProtection.classKeyGracePeriod)) ago"
                : "the device is unlocked"
        }
    }

    /// `Data.write(to:options:)` with a protection option. Fails like iOS
    /// when the class key is not available now.
    @discardableResult
    public mutating func writeFile(for app: AppID, path: String, protection: FileProtection, bytes: Int64 = 0) -> FileAccess {
        let i = Int(app.index)
        let p = text(path)
        if let refusal = protectedDataRefusal(protection) {
            record(app, .fileWrite(path: p, protection: protection, ok: false, reason: text(refusal)))
            return .notPermitted(reason: refusal)
        }
        apps[i].files[p] = ProtectedFile(protection: protection, bytes: bytes)
        record(app, .fileWrite(path: p, protection: protection, ok: true, reason: text(protectedDataGrant(protection))))
        return .ok
    }

    /// `Data(contentsOf:)` of a file the app wrote.
    @discardableResult
    public mutating func readFile(for app: AppID, path: String) -> FileAccess {
        let i = Int(app.index)
        let p = text(path)
        guard let file = apps[i].files[p] else {
            record(app, .fileRead(path: p, protection: nil, ok: false, reason: text("no such file")))
            return .noSuchFile
        }
        if let refusal = protectedDataRefusal(file.protection) {
            record(app, .fileRead(path: p, protection: file.protection, ok: false, reason: text(refusal)))
            return .notPermitted(reason: refusal)
        }
        record(app, .fileRead(path: p, protection: file.protection, ok: true,
                              reason: text(protectedDataGrant(file.protection))))
        return .ok
    }

    /// The protection class of a file the app wrote, if it exists.
    public func fileProtection(for app: AppID, path: String) -> FileProtection? {
        guard let p = texts.index[path] else { return nil }
        return apps[Int(app.index)].files[TextID(index: p)]?.protection
    }
}
