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
    /// Found when first used, in app code (a provider may be made with the
    /// app delegate, before the app's code runs).
    lazy var connection: SystemConnection = Application.shared.connection
    public let configuration: CXProviderConfiguration
    public private(set) weak var delegate: CXProviderDelegate?

    public init(configuration: CXProviderConfiguration) {
        self.configuration = configuration
    }

    public func setDelegate(_ delegate: CXProviderDelegate?, queue: DispatchQueue?) { self.delegate = delegate }

    /// Reports the call now (this is what the VoIP push rule checks). The
    /// completion runs at once: an incoming call's own life (ringing,
    /// answering) is not simulated.
    public func reportNewIncomingCall(with uuid: UUID, update: CXCallUpdate, completion: @escaping (Error?) -> Void) {
        connection.reportNewIncomingCall()
        completion(nil)
    }
}
