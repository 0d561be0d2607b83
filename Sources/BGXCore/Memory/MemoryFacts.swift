/// What jetsam reads of each app's process (rules §10): its state and since
/// when, and what holds it in the background. Read-only; the engine's process
/// table answers it itself (`Engine/MemorySteps.swift`), passed in place on
/// the hot path, and a test answers with a plain value. Which apps have a
/// process and the device's RAM go in beside it as values.
protocol MemoryFacts {
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
