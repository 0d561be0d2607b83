// TEMPORARY, never committed: main's LiveSystemConnection lags SystemConnection.
import BGXApp
import Foundation
extension LiveSystemConnection {
    public func keepRestoreIdentifier(_ identifier: String, peripheral: Bool, kept: Bool) {}
    public func restoreIdentifiers(peripheral: Bool) -> [String] { [] }
    public func setRestorationState(_ state: Any?, for identifier: String, peripheral: Bool) {}
    public func restorationState(for identifier: String, peripheral: Bool) -> Any? { nil }
    public func nextTaskIdentifier(session: String) -> Int { 0 }
    public func rememberTransfer(_ task: Int32, taskIdentifier: Int, description: String?, bytes: Int64) {}
    public func rememberedTransfer(_ task: Int32) -> (taskIdentifier: Int, description: String?, bytes: Int64)? { nil }
}
