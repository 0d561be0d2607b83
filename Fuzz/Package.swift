// swift-tools-version:5.4
import PackageDescription

// libFuzzer targets for what bgx reads from outside: the live protocol's
// frames, scenario files and Info.plists. A package of its own, so the plain
// `swift build` and `swift run bgx demo` never build it; `Fuzz/run` builds it
// with `-sanitize=fuzzer,address` (libFuzzer supplies `main`) and runs each
// target on its seed corpus (Fuzz/Corpus/TARGET).
// Tools version 5.4, below 5.5: from 5.5 on SwiftPM links an executable's
// `main` to a renamed entry point (`TARGET_main`, for testable executables)
// that `-parse-as-library` never emits, so libFuzzer's `main` could not link.
let package = Package(
    name: "bgx-fuzz",
    dependencies: [.package(name: "bgx", path: "..")],
    targets: [
        .executableTarget(name: "FuzzFrame", dependencies: [.product(name: "BGXLive", package: "bgx")]),
        .executableTarget(name: "FuzzScenario", dependencies: [.product(name: "BGXSimulation", package: "bgx")]),
        .executableTarget(
            name: "FuzzInfoPlist",
            dependencies: [.product(name: "BGXSimulation", package: "bgx"), .product(name: "BGXLive", package: "bgx")]),
    ]
)
