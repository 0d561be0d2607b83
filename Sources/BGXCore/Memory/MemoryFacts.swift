/// What jetsam reads of the process table (rules §10): which apps have a
/// process, each one's state and since when, and what holds it in the
/// background. Read-only; the engine answers with `ProcessTable`, a view of
/// its own (`Engine/MemorySteps.swift`), a test with a plain value. Generic
/// where asked, so the engine's answers are read in place on the hot path.
protocol MemoryFacts {
    /// The device's RAM in bytes: every level is a share of it.
    var deviceMemory: Int64 { get }
    /// Apps with a process (any state but not running), in index order.
    var residentApps: AppIndexSet { get }
    func state(_ i: Int) -> ProcessState
    /// When the app entered its state.
    func stateSince(_ i: Int) -> Nanoseconds
    /// Audible audio or an accessory session holds the app (`.audioOrAccessory`).
    func holdsAudioOrAccessory(_ i: Int) -> Bool
    /// Something holds the background app running (`Engine.keptRunningInBackground`).
    func keptRunningInBackground(_ i: Int) -> Bool
    /// The app's main thread runs nothing now.
    func mainThreadFree(_ i: Int) -> Bool
}

extension MemoryFacts {
    /// The app's jetsam band; nil when it is not running.
    @inline(__always) func jetsamBand(_ i: Int) -> JetsamBand? {
        JetsamBand.of(state(i), audioOrAccessory: holdsAudioOrAccessory(i)) { keptRunningInBackground(i) }
    }
}
