// swift-tools-version:6.0
import PackageDescription

// Swift 5 language mode: app code written against BGXApp is ordinary,
// single-threaded iOS-style code driven by the device's executor.
let v5: [SwiftSetting] = [.swiftLanguageMode(.v5)]
// Swift 6 language mode: app code that BGXKit's declarations (their isolation,
// their `@Sendable` handlers) must compile as the iOS SDK's do.
let v6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "bgx",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "BGXCore", targets: ["BGXCore"]),
        .library(name: "BGXApp", targets: ["BGXApp"]),
        .library(name: "BGXSimulation", targets: ["BGXSimulation"]),
        .library(name: "BGXKit", targets: ["BGXKit"]),
        .library(name: "BGXTestKit", targets: ["BGXTestKit"]),
        .executable(name: "bgx", targets: ["bgx"]),
        // The live host: `bgx daemon` and `bgx ctl` hand over to it, so the
        // demo's first build never compiles it.
        .library(name: "BGXLive", targets: ["BGXLive"]),
        .executable(name: "bgx-daemon", targets: ["bgx-daemon"]),
        .library(name: "BGXLiveApp", targets: ["BGXLiveApp"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        // Fleet delay distributions (`bgx fleet`): small, pure Swift.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        // The live host's state on disk (bgx-daemon only: never built for `bgx`).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(
            name: "BGXCore",
            // Only the module the engine uses: the whole Collections product compiled
            // ~200 more units into the demo's first build, and DequeModule brings
            // ContainersPreview (the engine's FIFOs are Engine/FIFO.swift).
            dependencies: [.product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: v5),
        .target(name: "BGXApp", dependencies: ["BGXCore", "BGXFoundationCenter"], swiftSettings: v5),
        // Foundation's NotificationCenter.addObserver(forName:object:queue:using:), out of sight of
        // BGXApp's overload of it, which notes app code's observers with their process.
        .target(name: "BGXFoundationCenter", swiftSettings: v5),
        // What tests of the engine, of its controllers and of apps share: a
        // host that answers every callback at once, story helpers.
        .target(name: "BGXTestKit", dependencies: ["BGXCore"], swiftSettings: v5),
        // What an app's Info.plist bytes may hold, checked before Foundation reads them
        // (the simulation's `bgx check` and the live host's install both read Info.plists).
        .target(name: "BGXPlist", swiftSettings: v5),
        // App code's clocks on a simulated device (C: it interposes libc's).
        .target(name: "CBGXClock"),
        .target(
            name: "BGXSimulation",
            dependencies: [
                "BGXCore", "BGXApp", "BGXTestKit", "BGXPlist", "CBGXClock", .product(name: "Yams", package: "Yams"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: v5),
        // iOS's names for app code: `import BGXKit` in place of UIKit and friends.
        .target(name: "BGXKit", dependencies: ["BGXApp", "BGXCore", "BGXSimulation"], swiftSettings: v5),
        .executableTarget(
            name: "bgx",
            dependencies: [
                "BGXCore", "BGXSimulation", "BGXDaemonArguments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: v5),
        // The live host's options, declared once for `bgx daemon`/`ctl` and `bgx-daemon`.
        .target(
            name: "BGXDaemonArguments",
            dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: v5),
        // The live host's process control (fork/exec into a cgroup, pidfds): C, since
        // only async-signal-safe calls may run between fork and exec.
        .target(name: "CBGXLive"),
        // The live host and the app side of its protocol (plain sockets and poll, no NIO).
        .target(name: "BGXLive", dependencies: ["BGXCore", "BGXPlist", "CBGXLive"], swiftSettings: v5),
        // The live host's journal and tables in SQLite (GRDB, WAL), behind BGXLive's
        // `DurableStore`: only bgx-daemon and the tests link it, never `bgx` or an app.
        .target(
            name: "BGXLiveStore",
            dependencies: ["BGXLive", "BGXCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: v5),
        // SHA-256 from the system's libcrypto, opened when a digest begins (C: dlopen), for
        // downloads' checksums: one digest did not justify compiling swift-crypto's BoringSSL.
        .target(name: "CBGXCrypto", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "BGXDigest", dependencies: ["CBGXCrypto"]),
        // Background transfers that move real bytes (the toolchain's URLSession, over libcurl):
        // resumable downloads with HTTP Range, verified before the app gets the file (bgx-transferd).
        .target(name: "BGXLiveTransfers", dependencies: ["BGXLive", "BGXDigest"]),
        // Where the live host hears the platform: the system bus (UPower, NetworkManager,
        // logind) and a wlroots compositor's toplevels, each spoken on the wire in plain
        // Swift, and the kernel's power-supply directory (bgx-daemon only).
        .target(name: "BGXLivePlatform", dependencies: ["BGXLive"], swiftSettings: v5),
        // BGXApp's app code as a real process under the daemon: its connection
        // to the system over the live protocol, and the loop that runs its delegate.
        .target(name: "BGXLiveApp", dependencies: ["BGXApp", "BGXCore", "BGXLive"], swiftSettings: v5),
        // The live host's transfer process (bgx-daemon starts it beside itself): the network
        // stack lives here, never mapped by the daemon.
        .executableTarget(name: "bgx-transferd", dependencies: ["BGXLive", "BGXLiveTransfers"], swiftSettings: v5),
        .executableTarget(
            name: "bgx-daemon",
            dependencies: [
                "BGXLive", "BGXLiveStore", "BGXLivePlatform", "BGXCore", "BGXSimulation", "BGXDaemonArguments",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: v5),
        // A small app the live host's tests run as a real process.
        .executableTarget(name: "bgx-live-testapp", dependencies: ["BGXLive"], path: "Tests/LiveTestApp", swiftSettings: v5),
        // A BGXApp app whose background URLSession transfers the live host's tests follow.
        .executableTarget(
            name: "bgx-live-transferapp", dependencies: ["BGXApp", "BGXLiveApp"], path: "Tests/LiveTransferApp",
            swiftSettings: v5),
        // A hostile client of the daemon's socket, run by the tests as its own process.
        .executableTarget(name: "bgx-live-flood", dependencies: ["BGXLive"], path: "Tests/LiveFlood", swiftSettings: v5),
        // A BGXApp app the live host's tests run as a real process.
        .executableTarget(
            name: "bgx-live-kitapp", dependencies: ["BGXApp", "BGXLiveApp"], path: "Tests/LiveKitApp", swiftSettings: v5),
        .testTarget(
            name: "BGXLiveTests",
            dependencies: [
                "BGXLive", "BGXLiveStore", "BGXLiveTransfers", "BGXCore", "BGXSimulation", "BGXKit", "ColorFeedExample",
                "BGXTestKit",
                // To check the bytes background transfers moved.
                "BGXDigest",
                // Property tests of the frame decoder.
                .product(name: "PropertyBased", package: "swift-property-based"),
                // To read and alter a state file's tables as a person with sqlite3 would.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: v5),
        // Examples/: iOS-style app code compiled for bgx through BGXKit.
        .target(name: "ColorFeedExample", dependencies: ["BGXKit"], path: "Examples/ColorFeed", swiftSettings: v6),
        // Swift 5 mode: its singleton changes its inbox from GCD queues without a lock, which Swift 6
        // mode rejects (on iOS as here); the example shows that pattern as apps still have it.
        .target(name: "MessengerExample", dependencies: ["BGXKit"], path: "Examples/Messenger", swiftSettings: v5),
        .target(name: "CallerExample", dependencies: ["BGXKit"], path: "Examples/Caller", swiftSettings: v6),
        .target(name: "CatalogSyncExample", dependencies: ["BGXKit"], path: "Examples/CatalogSync", swiftSettings: v6),
        // Written as new apps are: a scene-based app and a SwiftUI-lifecycle one.
        .target(name: "FieldNotesExample", dependencies: ["BGXKit"], path: "Examples/FieldNotes", swiftSettings: v6),
        .target(name: "PodcastsExample", dependencies: ["BGXKit"], path: "Examples/Podcasts", swiftSettings: v6),
        // Examples/ColorFeed's unchanged AppDelegate as a real process under `bgx daemon`.
        .executableTarget(
            name: "colorfeed-live", dependencies: ["ColorFeedExample", "BGXKit", "BGXLiveApp"],
            path: "Examples/ColorFeedLive", swiftSettings: v5),
        // Examples/Messenger's unchanged app code (GCD's queues and all) as a real process.
        .executableTarget(
            name: "messenger-live", dependencies: ["MessengerExample", "BGXKit", "BGXLiveApp"],
            path: "Examples/MessengerLive", swiftSettings: v5),
        // App code of BGXKitTests that must be compiled in Swift 6 mode (its runtime isolation checks).
        .target(name: "Swift6Fixtures", dependencies: ["BGXKit"], path: "Tests/Swift6Fixtures", swiftSettings: v6),
        .testTarget(
            name: "BGXKitTests",
            dependencies: ["BGXKit", "BGXSimulation", "BGXCore", "ColorFeedExample", "MessengerExample",
                           "CallerExample", "CatalogSyncExample", "FieldNotesExample", "PodcastsExample",
                           "Swift6Fixtures"],
            swiftSettings: v5),
        .testTarget(
            name: "BGXTests",
            dependencies: [
                "BGXCore", "BGXApp", "BGXSimulation", "BGXTestKit",
                .product(name: "PropertyBased", package: "swift-property-based"),
                // To read `bgx fleet plan`'s Kubernetes manifest as YAML.
                .product(name: "Yams", package: "Yams"),
                // To check that a heap decoded from a snapshot keeps its layout.
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            // The golden traces' hashes, read by TraceGoldenTests from the source tree.
            exclude: ["Golden"],
            swiftSettings: v5),
    ]
)
