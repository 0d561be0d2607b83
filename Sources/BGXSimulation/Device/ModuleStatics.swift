import CBGXClock
import Foundation

/// The statics and globals of one Swift module linked into this executable
/// (`static let shared = SyncManager()`, top-level `let`s), found by their
/// symbols: on iOS every process starts with them uninitialised, so a
/// singleton that registers its launch handler in `init` registers again
/// after a kill. All apps share one process here; `reset()` gives the module
/// that boundary back: lazily initialised ones get their `swift_once` token
/// cleared (the next use runs the initialiser again), and every one's storage
/// gets the bytes it had when the module was first looked at. What the old
/// values held is leaked, not released — the process that owned it is gone.
/// Linux only (ELF symbol table of the executable).
public struct ModuleStatics {
    public let module: String
    /// `swift_once` tokens of lazily initialised globals and statics.
    private let tokens: [UnsafeMutableRawBufferPointer]
    /// Each storage's address and its first bytes.
    private let storage: [(address: UnsafeMutableRawPointer, bytes: [UInt8])]

    public var count: Int { storage.count }

    public enum Failure: Error, CustomStringConvertible {
        case noSymbolTable(String)
        case noStatics(String)
        public var description: String {
            switch self {
            case let .noSymbolTable(why): "not yet supported: finding a module's statics here (\(why))"
            case let .noStatics(module): "module '\(module)' has no statics or globals in this executable"
            }
        }
    }

    /// Reads the executable's symbol table for `module`'s statics now (call it
    /// before the module's code runs, so the bytes kept are the initial ones).
    public init(module: String) throws {
        self.module = module
        #if os(Linux)
        let symbols = try ExecutableSymbols.load()
        let prefix = "$s\(module.utf8.count)\(module)"
        var tokens: [UnsafeMutableRawBufferPointer] = []
        var storage: [(UnsafeMutableRawPointer, [UInt8])] = []
        for symbol in symbols.objects where symbol.name.hasPrefix(prefix) {
            let address = UnsafeMutableRawPointer(bitPattern: symbols.base &+ Int(symbol.value))!
            if symbol.name.hasSuffix("Wz") {
                tokens.append(UnsafeMutableRawBufferPointer(start: address, count: Int(symbol.size)))
            } else if symbol.name.hasSuffix("vp") || symbol.name.hasSuffix("vpZ") {
                storage.append((address, Array(UnsafeRawBufferPointer(start: address, count: Int(symbol.size)))))
            }
        }
        guard !storage.isEmpty || !tokens.isEmpty else { throw Failure.noStatics(module) }
        self.tokens = tokens
        self.storage = storage
        #else
        throw Failure.noSymbolTable("the executable is not ELF")
        #endif
    }

    /// The module as a new process finds it.
    public func reset() {
        for (address, bytes) in storage {
            bytes.withUnsafeBytes { address.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        for token in tokens { token.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}

/// The Swift functions of this executable whose mangled name starts with
/// `prefix`, demangled (`Module.Type.method(label: Type, …) -> Result`).
/// Empty where the executable's symbols cannot be read.
public func demangledFunctions(withPrefix prefix: String, containing fragment: String) -> [String] {
    #if os(Linux)
    guard let symbols = try? ExecutableSymbols.load() else { return [] }
    return symbols.functions.filter { $0.hasPrefix(prefix) && $0.contains(fragment) }.compactMap { name in
        guard let demangled = swiftDemangle(name, UInt(name.utf8.count), nil, nil, 0) else { return nil }
        defer { free(demangled) }
        return String(cString: demangled)
    }
    #else
    return []
    #endif
}

@_silgen_name("swift_demangle")
func swiftDemangle(_ mangled: UnsafePointer<CChar>?, _ length: UInt, _ output: UnsafeMutablePointer<CChar>?,
                           _ outputSize: UnsafeMutablePointer<UInt>?, _ flags: UInt32) -> UnsafeMutablePointer<CChar>?

#if os(Linux)
/// The data symbols (`STT_OBJECT`) of this process's executable and where it is loaded.
struct ExecutableSymbols {
    struct Symbol {
        let name: String
        let value: UInt64
        let size: UInt64
    }
    let objects: [Symbol]
    /// Names of the Swift functions (mangled, `$s…`).
    let functions: [String]
    /// Every function with its address range (`value` relative to `base`), by address.
    let functionRanges: [Symbol]
    let base: Int

    /// The function of this executable that holds `address`, if any (its mangled name).
    func function(at address: Int) -> String? {
        let value = UInt64(bitPattern: Int64(address &- base))
        var low = 0, high = functionRanges.count
        while low < high {
            let middle = (low + high) / 2
            if functionRanges[middle].value <= value { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let symbol = functionRanges[low - 1]
        return value < symbol.value &+ max(symbol.size, 1) ? symbol.name : nil
    }

    nonisolated(unsafe) private static var cached: ExecutableSymbols?
    private static let lock = NSLock()

    static func load() throws -> ExecutableSymbols {
        lock.lock()
        defer { lock.unlock() }
        if let cached { return cached }
        let loaded = try read()
        cached = loaded
        return loaded
    }

    private static func read() throws -> ExecutableSymbols {
        let image = try Data(contentsOf: URL(fileURLWithPath: "/proc/self/exe"), options: .alwaysMapped)
        return try image.withUnsafeBytes { (file: UnsafeRawBufferPointer) throws -> ExecutableSymbols in
            func read<T: FixedWidthInteger>(_ offset: Int, as: T.Type) -> T {
                file.loadUnaligned(fromByteOffset: offset, as: T.self)
            }
            guard file.count > 64, file[0] == 0x7F, file[1] == 0x45, file[2] == 0x4C, file[3] == 0x46, file[4] == 2 else {
                throw ModuleStatics.Failure.noSymbolTable("the executable is not 64-bit ELF")
            }
            let sectionTable = Int(read(0x28, as: UInt64.self))
            let sectionSize = Int(read(0x3A, as: UInt16.self))
            let sectionCount = Int(read(0x3C, as: UInt16.self))
            func section(_ i: Int) -> (type: UInt32, offset: Int, size: Int, link: Int, entry: Int) {
                let at = sectionTable + i * sectionSize
                return (read(at + 4, as: UInt32.self), Int(read(at + 0x18, as: UInt64.self)),
                        Int(read(at + 0x20, as: UInt64.self)), Int(read(at + 0x28, as: UInt32.self)),
                        Int(read(at + 0x38, as: UInt64.self)))
            }
            guard let symtab = (0..<sectionCount).map(section).first(where: { $0.type == 2 }) else {  // SHT_SYMTAB
                throw ModuleStatics.Failure.noSymbolTable("the executable is stripped")
            }
            let strings = section(symtab.link)
            var objects: [Symbol] = []
            var functions: [String] = []
            var ranges: [Symbol] = []
            var anchor: UInt64?
            for i in 0..<(symtab.size / max(symtab.entry, 1)) {
                let at = symtab.offset + i * symtab.entry
                let info = file[at + 4]
                let nameOffset = strings.offset + Int(read(at, as: UInt32.self))
                let value = read(at + 8, as: UInt64.self)
                let name = String(cString: file.baseAddress!.advanced(by: nameOffset).assumingMemoryBound(to: CChar.self))
                if info & 0xF == 1 {  // STT_OBJECT
                    objects.append(Symbol(name: name, value: value, size: read(at + 16, as: UInt64.self)))
                } else if info & 0xF == 2 {  // STT_FUNC
                    if name.hasPrefix("$s") { functions.append(name) }
                    if value != 0 { ranges.append(Symbol(name: name, value: value, size: read(at + 16, as: UInt64.self))) }
                }
                if name == "bgx_virtual_clock_swap" { anchor = value }
            }
            // Where the executable is loaded: a function of ours, by address and by symbol.
            guard let anchor else { throw ModuleStatics.Failure.noSymbolTable("CBGXClock is not in the executable") }
            let function: @convention(c) (bgx_virtual_clock) -> bgx_virtual_clock = bgx_virtual_clock_swap
            ranges.sort { $0.value < $1.value }
            return ExecutableSymbols(objects: objects, functions: functions, functionRanges: ranges, base: unsafeBitCast(function, to: Int.self) &- Int(anchor))
        }
    }
}
#endif
