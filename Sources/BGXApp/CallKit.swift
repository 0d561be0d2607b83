import BGXCore
import Foundation

/// CallKit, as far as SPEC §4 needs it: reporting the incoming call a VoIP
/// push announced.
public final class CXProviderConfiguration {
    public var localizedName: String?
    public var supportsVideo = false
    public init() {}
}

public final class CXHandle {
    public enum HandleType: Sendable { case generic, phoneNumber, emailAddress }
    public let type: HandleType
    public let value: String
    public init(type: HandleType, value: String) {
        self.type = type
        self.value = value
    }
}

public final class CXCallUpdate {
    public var remoteHandle: CXHandle?
    public var localizedCallerName: String?
    public var hasVideo = false
    public init() {}
}

public protocol CXProviderDelegate: AnyObject {
    func providerDidReset(_ provider: CXProvider)
}

public final class CXProvider {
    let connection: SystemConnection
    public let configuration: CXProviderConfiguration
    public private(set) weak var delegate: CXProviderDelegate?

    public init(configuration: CXProviderConfiguration) {
        self.configuration = configuration
        connection = Application.shared.connection
    }

    public func setDelegate(_ delegate: CXProviderDelegate?, queue: DispatchQueue?) { self.delegate = delegate }

    /// Reports the call now (this is what the VoIP push rule checks); the
    /// completion follows on the main queue.
    public func reportNewIncomingCall(with uuid: UUID, update: CXCallUpdate, completion: @escaping (Error?) -> Void) {
        connection.reportNewIncomingCall()
        connection.asyncAfter(seconds: 0) { completion(nil) }
    }
}
