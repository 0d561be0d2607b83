import BGXCore
import BGXSimulation
import Foundation
import Testing

/// Inputs the libFuzzer targets (Fuzz/, docs/fuzzing.md) found to break bgx,
/// each kept here as the rule it broke: bad input is refused with a located
/// error, never a crash.
@Suite("Found by fuzzing")
struct FuzzFindingsTests {
    /// Writes `bytes` as an Info.plist in a fresh directory; its path.
    static func plist(_ bytes: [UInt8]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("Info.plist").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("an Info.plist declaring encoding UTF7 (and a stray byte) is refused at its declaration, not handed to libxml2 to crash on",
          arguments: [
              Array(#"<?xml version="1.0" encoding="UTF7""#.utf8) + [0xB5],  // FuzzInfoPlist's minimized crash
              Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><plist><dict><key>a</key></dict></plist>"#.utf8),
              Array(#"<?xml version="1.0" encoding=UTF-8?><plist><dict><key>a</key></dict></plist>"#.utf8),
          ])
    func infoPlistDeclaringAnotherEncoding(bytes: [UInt8]) throws {
        let path = try Self.plist(bytes)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let error = try #require(throws: ScenarioError.self) { try InfoPlist.read(path) }
        #expect(error.location.file == path && error.location.line == 1 && error.location.column == 21, "\(error)")
        #expect(error.message.contains("a property list is UTF-8"), "\(error)")
    }

    @Test("an Info.plist that is not UTF-8 text (UCS-4 by its first bytes, a NUL, a stray byte) is refused at the byte, not handed to libxml2 to crash on",
          arguments: [
              ([0x00, 0x00, 0x00, 0x3C, 0x3C, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x3C], 1, 1, "a NUL byte"),  // FuzzInfoPlist's crash
              (Array("<plist>\n<dict><key>a".utf8) + [0xFF] + Array("</key></dict></plist>".utf8), 2, 13, "0xFF"),
              (Array("<plist><dict><key>\u{E9}".utf8) + [0xC3] + Array("</key></dict></plist>".utf8), 1, 21, "0xC3"),  // a lead byte cut short
              (Array("<plist><dict><key>".utf8) + [0xED, 0xA0, 0x80] + Array("</key></dict></plist>".utf8), 1, 19, "0xED"),  // a surrogate
          ])
    func infoPlistThatIsNotUTF8(bytes: [UInt8], line: Int, column: Int, naming: String) throws {
        let path = try Self.plist(bytes)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let error = try #require(throws: ScenarioError.self) { try InfoPlist.read(path) }
        #expect(error.location.line == line && error.location.column == column, "\(error)")
        #expect(error.message.contains(naming) && error.message.contains("UTF-8 text"), "\(error)")
    }

    @Test("UTF-8 text of every length (é, €, 𝄞) in an Info.plist is read as before")
    func infoPlistWithMultibyteText() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
              <key>CFBundleIdentifier</key><string>com.example.caf\u{E9}\u{20AC}\u{1D11E}</string>
            </dict></plist>
            """
        let path = try Self.plist(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        #expect(try InfoPlist.read(path).bundleIdentifier == "com.example.caf\u{E9}\u{20AC}\u{1D11E}")
        // And the same text broken after its multibyte characters is located past them, by byte.
        let broken = try Self.plist(Array(text.replacingOccurrences(of: "</dict>", with: "</dic>").utf8))
        defer { try? FileManager.default.removeItem(atPath: (broken as NSString).deletingLastPathComponent) }
        let error = try #require(throws: ScenarioError.self) { try InfoPlist.read(broken) }
        #expect(error.location.line == 4 && error.message.contains("malformed XML"), "\(error)")
    }

    @Test("an Info.plist with a processing instruction (<?target?>) is refused where it is, not handed to XMLParser to crash on",
          arguments: [
              (Array("<?xrEN?>".utf8), 1, 1),  // FuzzInfoPlist's crash
              (Array("<?xml version=\"1.0\"?>\n<plist>\n  <?x?><dict><key>a</key></dict></plist>".utf8), 3, 3),
          ])
    func infoPlistWithProcessingInstruction(bytes: [UInt8], line: Int, column: Int) throws {
        let path = try Self.plist(bytes)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let error = try #require(throws: ScenarioError.self) { try InfoPlist.read(path) }
        #expect(error.location.line == line && error.location.column == column, "\(error)")
        #expect(error.message.contains("processing instruction"), "\(error)")
    }

    @Test("an Info.plist declaring UTF-8, in any case, is still read and its errors located as before")
    func infoPlistDeclaringUTF8() throws {
        let text = """
            <?xml version="1.0" encoding="utf-8"?>
            <plist version="1.0">
            <dict>
              <key>CFBundleIdentifier</key><string>com.example.x</string>
              <key>UIBackgroundModes</key><array><string>fetch</string></array>
            </dict>
            </plist>
            """
        let good = try Self.plist(Array(text.utf8))
        #expect(try InfoPlist.read(good).backgroundModes == [.fetch])
        let broken = try Self.plist(Array(text.replacingOccurrences(of: "</array>", with: "</arry>").utf8))
        let error = try #require(throws: ScenarioError.self) { try InfoPlist.read(broken) }
        #expect(error.location.line == 5, "\(error)")
    }

    /// FuzzInfoPlist's crash: a binary plist whose top object is a set of five
    /// strings. Foundation on Linux crashes bridging the set to Swift.
    static let binaryPlistWithSet: [UInt8] = [
        0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x31, 0xC5, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x08,
        0x09, 0x0A, 0x0B, 0x5F, 0x10, 0x23, 0x42, 0x47, 0x54, 0x61, 0x73, 0x6B, 0x53, 0x63, 0x68, 0x65,
        0x64, 0x75, 0x6C, 0x65, 0x72, 0x50, 0x65, 0x72, 0x6D, 0x69, 0x74, 0x74, 0x65, 0x64, 0x01, 0x00,
        0x00, 0x07, 0x74, 0x69, 0x66, 0x69, 0x65, 0x72, 0x73, 0x5F, 0x10, 0x12, 0x43, 0x46, 0x42, 0x75,
        0x6E, 0x64, 0x6C, 0x65, 0x45, 0x78, 0x65, 0x63, 0x75, 0x74, 0x61, 0x62, 0x6C, 0x65, 0x5F, 0x10,
        0x12, 0x43, 0x46, 0x42, 0x75, 0x6E, 0x64, 0x6C, 0x65, 0x49, 0x64, 0x65, 0x6E, 0x74, 0x69, 0x66,
        0x69, 0x65, 0x72, 0x5F, 0x10, 0x1B, 0x55, 0x49, 0x41, 0x70, 0x70, 0x6C, 0x69, 0x63, 0x61, 0x74,
        0x69, 0x6F, 0x6E, 0x45, 0x78, 0x69, 0x74, 0x73, 0x4F, 0x6E, 0x53, 0x75, 0x73, 0x70, 0x65, 0x6E,
        0x64, 0x5F, 0x10, 0x11, 0x55, 0x49, 0x42, 0x61, 0x63, 0x6B, 0x67, 0x72, 0x6F, 0x75, 0x6E, 0x64,
        0x4D, 0x6F, 0x64, 0x65, 0x73, 0xA1, 0x07, 0x5F, 0x10, 0x17, 0x63, 0x6F, 0x6D, 0x2E, 0x65, 0x78,
        0x61, 0x6D, 0x70, 0x6C, 0x65, 0x2E, 0x61, 0x70, 0x70, 0x2E, 0x72, 0x65, 0x66, 0x72, 0x65, 0x73,
        0x68, 0x53, 0x61, 0x70, 0x70, 0x5F, 0x10, 0x0F, 0x63, 0x6F, 0x6D, 0x2E, 0x65, 0x78, 0x61, 0x6D,
        0x70, 0x6C, 0x65, 0x2E, 0x61, 0x70, 0x70, 0x08, 0xA3, 0x0C, 0x0D, 0x0E, 0x55, 0x66, 0x63, 0x65,
        0x10, 0x5F, 0x68, 0x13, 0x74, 0x72, 0x65, 0x6D, 0x6F, 0x74, 0x65, 0x2D, 0x6E, 0x6F, 0x74, 0x69,
        0x66, 0x69, 0x63, 0x61, 0x74, 0x69, 0x6F, 0x6E, 0x5A, 0x70, 0x72, 0x6F, 0x63, 0x65, 0x73, 0x73,
        0x69, 0x6E, 0x67, 0x08, 0x13, 0x39, 0x4E, 0x63, 0x81, 0x95, 0x97, 0xB1, 0xB5, 0xC7, 0xC8, 0xCC,
        0xD2, 0xE8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x0F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0xF3,
    ]

    /// A well-formed binary plist: 8-byte header, objects, offset table, trailer.
    static func binaryPlist(objects: [[UInt8]], top: Int = 0) -> [UInt8] {
        var bytes = Array("bplist00".utf8), offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [objects.count, top, table] { bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        return bytes
    }

    @Test("a binary Info.plist holding a set is refused by bgx check, not handed to Foundation to crash on")
    func binaryPlistWithASet() throws {
        let path = try Self.plist(Self.binaryPlistWithSet)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let error = try #require(throws: ScenarioError.self) { try InfoPlist.read(path) }
        #expect(error.message == "not an Info.plist: a binary property list holding a set (object 0), which an Info.plist never holds",
                "\(error)")
    }

    @Test("what a binary plist may hold: a dictionary of strings and arrays is read; sets, ordered sets, UIDs and non-string keys are refused",
          arguments: [
              // {"CFBundleIdentifier": "x", "UIBackgroundModes": ["fetch"]}: read.
              ([[0xD2, 1, 2, 3, 4], Array("\u{5F}\u{10}\u{12}CFBundleIdentifier".utf8), Array("\u{5F}\u{10}\u{11}UIBackgroundModes".utf8),
                [0x51] + Array("x".utf8), [0xA1, 5], [0x55] + Array("fetch".utf8)], nil),
              ([[0xC1, 1], [0x51] + Array("x".utf8)], "a set (object 0)"),
              ([[0xB1, 1], [0x51] + Array("x".utf8)], "an ordered set (object 0)"),
              ([[0xA1, 1], [0x80, 7]], "a UID (a keyed archive's reference) (object 1)"),
              ([[0xD1, 1, 2], [0x10, 7], [0x51] + Array("x".utf8)], "a dictionary key that is not a string (object 0)"),
              ([[0xA1, 9]], "malformed"),
          ] as [([[UInt8]], String?)])
    func binaryPlistContents(objects: [[UInt8]], refused: String?) throws {
        let bytes = Self.binaryPlist(objects: objects)
        let path = try Self.plist(bytes)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        if let refused {
            let error = try #require(throws: ScenarioError.self) { try InfoPlist.read(path) }
            #expect(error.message.contains(refused), "\(error)")
        } else {
            let manifest = try InfoPlist.read(path)
            #expect(manifest.bundleIdentifier == "x" && manifest.backgroundModes == [.fetch])
        }
    }
}
