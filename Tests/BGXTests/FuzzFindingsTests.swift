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
}
