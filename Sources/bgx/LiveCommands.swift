import ArgumentParser
import BGXDaemonArguments
import Foundation

// `bgx daemon` and `bgx ctl` hand over to `bgx-daemon`, a separate
// executable beside `bgx`: the live host's code is never built for the demo.

/// Replaces this process with `bgx-daemon` beside it, or says how to build it.
func handOverToLiveHost(_ arguments: [String]) throws -> Never {
    let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let path = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("bgx-daemon").path
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw fail("error: the live host is a separate executable, not found at \(path); build it with "
                   + "`swift build --product bgx-daemon`")
    }
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    execv(path, argv)
    throw fail("error: cannot run \(path): \(String(cString: strerror(errno)))")
}

/// The words after `bgx`, as typed: the subcommand and its options, handed over
/// unchanged, so that `bgx-daemon` parses exactly what `bgx` checked.
func wordsAsTyped() -> [String] { Array(CommandLine.arguments.dropFirst()) }

struct Daemon: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the live host: the same engine governing real Linux processes.",
        discussion: "Hands over to bgx-daemon, an executable built beside bgx (docs/live.md).")
    @OptionGroup var arguments: DaemonArguments

    func run() throws { try handOverToLiveHost(wordsAsTyped()) }
}

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive a running live host: install, launch, home, lock, push, device, status, explain, trace …")
    @OptionGroup var arguments: CtlArguments

    func run() throws { try handOverToLiveHost(wordsAsTyped()) }
}
