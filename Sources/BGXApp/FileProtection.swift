import BGXCore
import Foundation

/// rules §13: data protection. Files live on the simulated device's disk,
/// which the device owns; whether a file can be read depends on its
/// protection class and on the lock, as on iOS. `write(toDevice:options:)`
/// takes Foundation's own options — `.completeFileProtection`,
/// `.completeFileProtectionUntilFirstUserAuthentication`, `.noFileProtection`
/// — and a read of a `complete` file while the device is locked throws
/// what iOS throws: `CocoaError.fileReadNoPermission` (257) over POSIX EPERM.
extension Data {
    /// `write(to:options:)`, on the device running the code.
    public func write(toDevice url: URL, options: Data.WritingOptions = []) throws {
        let protection = try FileProtection(options)
        let access = Application.shared.connection.writeFile(path: url.path, data: self, protection: protection)
        if case let .notPermitted(reason) = access { throw Self.error(.fileWriteNoPermission, url, reason) }
    }

    /// `Data(contentsOf:)`, on the device running the code.
    public init(contentsOfDevice url: URL) throws {
        let (access, data) = Application.shared.connection.readFile(path: url.path)
        switch access {
        case .ok: self = data ?? Data()
        case .noSuchFile: throw Self.error(.fileReadNoSuchFile, url, "no such file")
        case let .notPermitted(reason): throw Self.error(.fileReadNoPermission, url, reason)
        }
    }

    static func error(_ code: CocoaError.Code, _ url: URL, _ reason: String) -> CocoaError {
        var info: [String: Any] = [NSFilePathErrorKey: url.path, NSLocalizedFailureReasonErrorKey: reason]
        if code != .fileReadNoSuchFile { info[NSUnderlyingErrorKey] = POSIXError(.EPERM) }
        return CocoaError(code, userInfo: info)
    }
}

extension FileProtection {
    /// The protection an option set asks for. The protection options are
    /// values under `fileProtectionMask`, not bits; none given is iOS's
    /// default for app files, complete until first user authentication.
    init(_ options: Data.WritingOptions) throws {
        let mask = Data.WritingOptions.fileProtectionMask.rawValue
        switch options.rawValue & mask {
        case 0, Data.WritingOptions.completeFileProtectionUntilFirstUserAuthentication.rawValue:
            self = .completeUntilFirstUserAuthentication
        case Data.WritingOptions.completeFileProtection.rawValue: self = .complete
        case Data.WritingOptions.noFileProtection.rawValue: self = .none
        default:
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedFailureReasonErrorKey:
                "not yet supported: completeFileProtectionUnlessOpen (a file kept open across the lock)"])
        }
    }
}

extension Application {
    /// `UIApplication.isProtectedDataAvailable`: can `complete` files be read now?
    public var isProtectedDataAvailable: Bool { connection.isProtectedDataAvailable }
}
