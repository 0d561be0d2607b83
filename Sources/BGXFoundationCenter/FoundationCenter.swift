import Foundation

/// Foundation's own `addObserver(forName:object:queue:using:)`, reached from a
/// module that does not see BGXApp's overload of it (which calls this).
public func foundationAddObserver(_ center: NotificationCenter, forName name: Notification.Name?, object: Any?,
                                  queue: OperationQueue?,
                                  using block: @escaping @Sendable (Notification) -> Void) -> NSObjectProtocol {
    center.addObserver(forName: name, object: object, queue: queue, using: block)
}
