import BGXCore
import CBGXClock
import Foundation

/// An app thread's crash, as its process's crash report would say it: the
/// message Swift wrote (`Fatal error: …`, `BUG IN CLIENT OF LIBDISPATCH: …`)
/// and the innermost frame of the app's own code.
enum AppCrash {
    /// Modules of bgx itself, whose frames are not the app's.
    static let runtimeModules = ["BGXSimulation.", "BGXKit.", "BGXApp.", "BGXCore.", "Swift.", "Foundation.",
                                 "Dispatch.", "_Concurrency."]

    static func describe(_ crash: bgx_crash) -> String {
        var record = crash
        let message = withUnsafeBytes(of: &record.message) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }.split(separator: "\n").last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let signal = signalName(crash.signal)
        // Addresses differ from run to run (ASLR): the trace keeps none.
        let steady = message.replacingOccurrences(of: #" ?\(0x[0-9a-fA-F]+\)"#, with: "", options: .regularExpression)
            .replacingOccurrences(of: #"0x[0-9a-fA-F]+"#, with: "0x…", options: .regularExpression)
        var words = steady.isEmpty ? signal : "\(steady) (\(signal))"
        if let frame = appFrame(crash) { words += " in \(frame)" }
        return words
    }

    /// The innermost frame whose function is the app's (not bgx's, the standard library's or a thunk).
    static func appFrame(_ crash: bgx_crash) -> String? {
        #if os(Linux)
        guard let symbols = try? ExecutableSymbols.load() else { return nil }
        var record = crash
        let frames = withUnsafeBytes(of: &record.frames) { Array($0.bindMemory(to: UInt.self).prefix(Int(crash.frame_count))) }
        for (index, address) in frames.enumerated() {
            // Return addresses point after the call: look one byte back (the innermost is the faulting pc).
            guard let name = symbols.function(at: Int(bitPattern: index == 0 ? address : address &- 1)),
                  name.hasPrefix("$s") else { continue }
            guard let demangled = swiftDemangle(name, UInt(name.utf8.count), nil, nil, 0) else { continue }
            defer { free(demangled) }
            let function = String(cString: demangled)
            if isAppCode(function) { return function }
        }
        #endif
        return nil
    }

    static func isAppCode(_ function: String) -> Bool {
        var name = Substring(function)
        for prefix in ["partial apply for ", "thunk for ", "reabstraction thunk", "@objc ", "merged "]
            where name.hasPrefix(prefix) { return false }
        while let range = name.range(of: " in "), name.hasPrefix("closure #") || name.hasPrefix("implicit closure #") {
            name = name[range.upperBound...]
        }
        return !runtimeModules.contains { name.hasPrefix($0) } && !name.hasPrefix("static Swift.")
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGILL: "SIGILL, a trap"
        case SIGTRAP: "SIGTRAP, a trap"
        case SIGABRT: "SIGABRT, abort"
        case SIGSEGV: "SIGSEGV, a bad access"
        case SIGBUS: "SIGBUS, a bad access"
        case SIGFPE: "SIGFPE, an arithmetic fault"
        default: "signal \(signal)"
        }
    }
}
