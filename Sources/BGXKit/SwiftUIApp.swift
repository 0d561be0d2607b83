import BGXApp
import BGXSimulation
import Foundation

// SwiftUI's app lifecycle, the part that runs in the background: an `App`
// whose scenes carry `.backgroundTask(_:action:)` handlers. The UI itself
// (views, windows) is out of scope: a `WindowGroup`'s content is never
// built. See docs/bgxkit.md, "SwiftUI's background tasks".

/// `App`: the app's entry point in SwiftUI's lifecycle.
@preconcurrency @MainActor
public protocol App {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
    init()
}

extension App {
    /// What `@main` calls on iOS. bgx runs an app only on a device
    /// (`SimulatedDevice.install(_:app:)`), so an executable started this
    /// way says so and exits with status 2.
    public static func main() {
        FileHandle.standardError.write(Data(("not yet supported: running \(Self.self) from its @main entry point; "
            + "install it on a SimulatedDevice (docs/bgxkit.md)\n").utf8))
        Foundation.exit(2)
    }
}

/// `Scene`: a part of the app's interface, here only a carrier of background tasks.
@preconcurrency @MainActor
public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder var body: Body { get }
}

extension Never: Scene {
    public var body: Never { fatalError("Never has no body") }
}

/// A scene bgx reads directly, not through its `body`.
@MainActor
protocol PrimitiveScene {
    var backgroundTaskActions: [BackgroundTaskAction] { get }
}

/// `SceneBuilder`.
@resultBuilder
public enum SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: Scene>(_ content: repeat each Content) -> TupleScene<repeat each Content> {
        TupleScene(repeat each content)
    }
}

/// Several scenes side by side (what `SceneBuilder` makes of them).
public struct TupleScene<each Content: Scene>: Scene, PrimitiveScene {
    let content: (repeat each Content)
    init(_ content: repeat each Content) { self.content = (repeat each content) }
    public var body: Never { fatalError("TupleScene has no body") }
    var backgroundTaskActions: [BackgroundTaskAction] {
        var actions: [BackgroundTaskAction] = []
        for scene in repeat each content { actions += BackgroundTaskAction.all(in: scene) }
        return actions
    }
}

/// `WindowGroup`. Its content is never built: bgx runs no UI.
public struct WindowGroup<Content>: Scene, PrimitiveScene {
    public init(content: () -> Content) {}
    public init(_ title: String, content: () -> Content) {}
    public init(id: String, content: () -> Content) {}
    public var body: Never { fatalError("WindowGroup has no body") }
    var backgroundTaskActions: [BackgroundTaskAction] { [] }
}

/// `BackgroundTask`: which of the system's background tasks an action handles.
public struct BackgroundTask<Request, Response>: Sendable {
    enum Kind: Sendable { case appRefresh(String), urlSession(String?) }
    let kind: Kind
}

extension BackgroundTask where Request == Void, Response == Void {
    /// The `BGAppRefreshTask` of this identifier (permit it in
    /// `BGTaskSchedulerPermittedIdentifiers` and submit a
    /// `BGAppRefreshTaskRequest` for it, as on iOS).
    public static func appRefresh(_ identifier: String) -> BackgroundTask<Void, Void> { .init(kind: .appRefresh(identifier)) }
    /// The events of the background `URLSession` of this identifier.
    public static func urlSession(_ identifier: String) -> BackgroundTask<Void, Void> { .init(kind: .urlSession(identifier)) }
}

extension BackgroundTask where Request == String, Response == Void {
    /// The events of any background `URLSession`; the action gets its identifier.
    public static var urlSession: BackgroundTask<String, Void> { .init(kind: .urlSession(nil)) }
}

/// A scene with a background-task action added.
public struct BackgroundTaskScene<Content: Scene>: Scene, PrimitiveScene {
    let content: Content
    let action: BackgroundTaskAction
    public var body: Never { fatalError("BackgroundTaskScene has no body") }
    var backgroundTaskActions: [BackgroundTaskAction] { BackgroundTaskAction.all(in: content) + [action] }
}

extension Scene {
    /// `backgroundTask(_:action:)`: runs `action` when the system hands the
    /// app that task; the task is complete when `action` returns.
    nonisolated public func backgroundTask<D: Sendable, R: Sendable>(
        _ task: BackgroundTask<D, R>, action: @escaping @Sendable (D) async -> R
    ) -> BackgroundTaskScene<Self> {
        let run: @Sendable (String) async -> Void = { identifier in
            // The two kinds' requests: nothing, or the session's identifier.
            if let request = () as? D { _ = await action(request) } else if let request = identifier as? D { _ = await action(request) }
        }
        return BackgroundTaskScene(content: self, action: BackgroundTaskAction(kind: task.kind, run: run))
    }
}

/// One `.backgroundTask` handler, as the app declared it.
struct BackgroundTaskAction: Sendable {
    let kind: BackgroundTask<Void, Void>.Kind
    let run: @Sendable (String) async -> Void

    init<D, R>(kind: BackgroundTask<D, R>.Kind, run: @escaping @Sendable (String) async -> Void) {
        self.kind = switch kind {
        case let .appRefresh(identifier): .appRefresh(identifier)
        case let .urlSession(identifier): .urlSession(identifier)
        }
        self.run = run
    }

    /// Every action in `scene` and the scenes in its body, in declaration order.
    @MainActor
    static func all(in scene: some Scene) -> [BackgroundTaskAction] {
        if let primitive = scene as? PrimitiveScene { return primitive.backgroundTaskActions }
        return all(in: scene.body)
    }
}
