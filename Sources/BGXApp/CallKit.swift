import BGXCore
import Foundation

/// CallKit, as far as rules §4 needs it: reporting the incoming call a VoIP
/// push announced.
public final class CXProviderConfiguration {
    public var localizedName: String?
    public var supportsVideo = false
    public var maximumCallGroups = 2
    public var maximumCallsPerCallGroup = 5
    public var supportedHandleTypes: Set<CXHandle.HandleType> = []
    public var includesCallsInRecents = true
    public var iconTemplateImageData: Data?
    public var ringtoneSound: String?
    public init() {}
    /// Deprecated on iOS 14, kept so older code compiles.
    public convenience init(localizedName: String) {
        self.init()
        self.localizedName = localizedName
    }
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
    public var supportsHolding = true
    public var supportsGrouping = true
    public var supportsUngrouping = true
    public var supportsDTMF = true
    public init() {}
}

/// Why a call ended, for `reportCall(with:endedAt:reason:)`.
public enum CXCallEndedReason: Int, Sendable {
    case failed = 1, remoteEnded, unanswered, answeredElsewhere, declinedElsewhere
}

/// An action the system asks the provider's delegate to perform. bgx does
/// not simulate a call's life (answering, hanging up), so it never sends one;
/// the classes exist so that a delegate written for iOS compiles.
open class CXAction: NSObject {
    public private(set) var isComplete = false
    public func fulfill() { isComplete = true }
    public func fail() { isComplete = true }
}
open class CXCallAction: CXAction {
    public let callUUID: UUID
    public init(call callUUID: UUID) { self.callUUID = callUUID }
}
public final class CXAnswerCallAction: CXCallAction {}
public final class CXEndCallAction: CXCallAction {}

public protocol CXProviderDelegate: AnyObject {
    func providerDidReset(_ provider: CXProvider)
    func providerDidBegin(_ provider: CXProvider)
    func provider(_ provider: CXProvider, perform action: CXAnswerCallAction)
    func provider(_ provider: CXProvider, perform action: CXEndCallAction)
}

/// Every method but `providerDidReset(_:)` is optional, as in CallKit.
extension CXProviderDelegate {
    public func providerDidBegin(_ provider: CXProvider) {}
    public func provider(_ provider: CXProvider, perform action: CXAnswerCallAction) { action.fail() }
    public func provider(_ provider: CXProvider, perform action: CXEndCallAction) { action.fail() }
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

    /// The app says a call ended (the caller hung up, it was answered
    /// elsewhere). bgx keeps no call state, so there is nothing to end.
    public func reportCall(with uuid: UUID, endedAt dateEnded: Date?, reason endedReason: CXCallEndedReason) {}
}
