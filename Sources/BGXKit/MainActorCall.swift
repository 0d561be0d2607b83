/// Calls main-actor app code (a `UIApplicationDelegate`'s method, a scene
/// delegate's) from the host's callback path. Both hosts call delegates
/// only on the app's main thread — the simulated device in the app's
/// main-thread jobs, the live host on the process's main run loop — which
/// is where iOS calls them; the isolation is a compile-time statement the
/// callers' own declarations (not main-actor ones) cannot make. A
/// synchronous `@MainActor` function type has the same representation as a
/// plain one, so the cast changes only what the type checker sees.
func onMainActor<T>(_ body: @MainActor () -> T) -> T {
    withoutActuallyEscaping(body) { escapable in
        unsafeBitCast(escapable, to: (() -> T).self)()
    }
}
