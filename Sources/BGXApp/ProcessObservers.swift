import BGXFoundationCenter
import Foundation

/// `NotificationCenter.default` is one for the whole host, but on iOS an
/// observer ends with its process. App code's observers are noted with the
/// simulated process that added them, which removes them as it ends.
extension NotificationCenter {
    /// Foundation's method, for an observed object that is a class instance or
    /// nil (Swift prefers this overload then: `AnyObject?` is the narrower
    /// type). In a simulated device's app code the observer is the process's.
    public func addObserver(forName name: Notification.Name?, object: AnyObject?, queue: OperationQueue?,
                            using block: @escaping @Sendable (Notification) -> Void) -> NSObjectProtocol {
        let observer = foundationAddObserver(self, forName: name, object: object, queue: queue, using: block)
        ProcessContext.current?.noteObserver(observer, on: self)
        return observer
    }
}

/// The observers one process's app code added (see above).
final class ProcessObservers: @unchecked Sendable {
    private let lock = NSLock()
    private var added: [(center: NotificationCenter, observer: NSObjectProtocol)] = []

    func note(_ observer: NSObjectProtocol, on center: NotificationCenter) {
        lock.withLock { added.append((center, observer)) }
    }

    /// Removes them all from their centers.
    func removeAll() {
        let all = lock.withLock {
            defer { added.removeAll() }
            return added
        }
        for entry in all { entry.center.removeObserver(entry.observer) }
    }
}

extension Application {
    func noteObserver(_ observer: NSObjectProtocol, on center: NotificationCenter) {
        observers.note(observer, on: center)
    }

    /// The process has ended: the observers its app code added go with it, as on iOS.
    public func removeObserversAddedByAppCode() { observers.removeAll() }
}
