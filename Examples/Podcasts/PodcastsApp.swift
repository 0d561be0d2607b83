// A podcast app written with SwiftUI's lifecycle (iOS 16+): no app
// delegate; its background work is declared on its scene. An app refresh
// checks the feed and queues the newest episode's download in a
// background URLSession; when the system wakes the app for that session's
// events, the `.urlSession` action runs until the session has delivered
// them. Written in Swift 6 language mode.
#if canImport(SwiftUI)
import SwiftUI
import UIKit
import BackgroundTasks
#else
import BGXKit
#endif

public struct PodcastsApp: App {
    nonisolated public static let refreshIdentifier = "com.example.podcasts.refresh"
    nonisolated public static let downloadsIdentifier = "com.example.podcasts.downloads"
    public let library: Library

    public init() { self.init(library: Library(feedLatency: 3)) }

    public init(library: Library) {
        self.library = library
        // The first refresh is asked for when the app leaves the screen (in `init`, SwiftUI has not
        // registered the action's handler yet); each refresh asks for the next.
        _ = NotificationCenter.default.addObserver(forName: UIApplication.didEnterBackgroundNotification,
                                                   object: UIApplication.shared, queue: nil) { _ in
            library.scheduleRefresh()
        }
    }

    public var body: some Scene {
        WindowGroup {
            LibraryView()
        }
        .backgroundTask(.appRefresh(Self.refreshIdentifier)) { [library] in
            await library.refresh()
        }
        .backgroundTask(.urlSession(Self.downloadsIdentifier)) { [library] in
            await library.downloadsFinished()
        }
    }
}
