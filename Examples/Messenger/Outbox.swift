// The messages the person has sent that the server has not received yet.
#if canImport(UIKit)
import UIKit
#else
import BGXKit
#endif

/// Kept in a file, so that a process the system launches later (to hear how
/// an upload went) finds the same messages.
public final class Outbox {
    public let fileURL: URL
    public private(set) var messages: [String]

    public init(fileURL: URL) {
        self.fileURL = fileURL
        let saved = try? Data(contentsOf: fileURL)
        messages = saved.flatMap { try? JSONDecoder().decode([String].self, from: $0) } ?? []
    }

    public func add(_ message: String) {
        messages.append(message)
        save()
    }

    /// The server has the first `count` messages; later ones stay.
    public func removeDelivered(_ count: Int) {
        messages.removeFirst(min(count, messages.count))
        save()
    }

    private func save() {
        try? JSONEncoder().encode(messages).write(to: fileURL, options: .atomic)
    }
}
