import BGXCore
@testable import BGXSimulation
import Foundation
import Testing

/// The demo's report drawn by a real browser: headless Chromium renders it to
/// a PNG, and the picture must not be blank — it holds the report's colours.
/// `.ci/run` installs Chromium and sets BGX_REQUIRE_BROWSER, so CI cannot skip
/// this; elsewhere it runs when a browser is on PATH.
@Suite("Timeline report in a browser")
struct ReportBrowserTests {
    static let browser: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        for dir in path.split(separator: ":") {
            for name in names where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        let mac = "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
        return FileManager.default.isExecutableFile(atPath: mac) ? mac : nil
    }()
    static let required = ProcessInfo.processInfo.environment["BGX_REQUIRE_BROWSER"] != nil

    /// Runs a program to its end; returns its exit status and standard output.
    static func execute(_ program: String, _ arguments: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `html` laid out by Chromium in a window `width` px wide with `script`
    /// run on it, which leaves its measurements as the page's only element,
    /// `<pre id="bgx-measured">`; that text (`--dump-dom` hands the page back).
    static func measured(_ html: String, script: String, width: Int) throws -> String {
        let browser = try #require(browser, "BGX_REQUIRE_BROWSER is set but no chromium is on PATH")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-measure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("page.html")
        try (html + script).write(to: page, atomically: true, encoding: .utf8)
        let (status, dom) = try execute(browser, [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=\(dir.appendingPathComponent("profile").path)",
            "--window-size=\(width),900", "--dump-dom", page.absoluteString,
        ])
        #expect(status == 0)
        let start = try #require(dom.range(of: "<pre id=\"bgx-measured\">"), "Chromium gave no measurements")
        let end = try #require(dom.range(of: "</pre>", range: start.upperBound..<dom.endIndex))
        return dom[start.upperBound..<end.lowerBound].replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Decodes an 8-bit RGB(A) PNG with the standard library and prints the
    /// number of distinct colours, the share of non-white pixels, and which
    /// of the given colours (hex) occur.
    static let pngSurvey = #"""
    import sys, zlib, struct
    data = open(sys.argv[1], 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    pos, idat = 8, b''
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR': w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        if kind == b'IDAT': idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a, b = line[i - bpp] if i >= bpp else 0, prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    colours, white = set(), 0
    wanted = {bytes.fromhex(c): c for c in sys.argv[2:]}
    count, longest = {c: 0 for c in wanted}, {c: 0 for c in wanted}
    for line in rows:
        run, previous = 0, None
        for x in range(0, stride, bpp):
            rgb = line[x:x + 3]; colours.add(rgb)
            if rgb == b'\xff\xff\xff': white += 1
            run = run + 1 if rgb == previous else 1
            previous = rgb
            if rgb in wanted:
                count[rgb] += 1
                longest[rgb] = max(longest[rgb], run)
    found = [c for c in sys.argv[2:] if bytes.fromhex(c) in colours]
    print(w, h, len(colours), round(1 - white / (w * h), 4), ' '.join(found))
    # Per colour: how many pixels, and its longest horizontal run (a band, not a marker).
    print(' '.join('%s:%d:%d' % (wanted[c], count[c], longest[c]) for c in wanted))
    """#

    @Test("headless Chromium draws the demo's report: a picture with the report's colours, not a blank page, with request bands",
          .enabled(if: browser != nil || required, "no chromium on PATH"))
    func rendersInChromium() throws {
        let browser = try #require(Self.browser, "BGX_REQUIRE_BROWSER is set but no chromium is on PATH")
        let run = try ScenarioRun(try ScenarioParser(file: Demo.file).parse(Demo.scenario))
        run.run()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bgx-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = dir.appendingPathComponent("demo.html"), png = dir.appendingPathComponent("demo.png")
        try TimelineReport(run: run).html.write(to: page, atomically: true, encoding: .utf8)

        let (status, _) = try Self.execute(browser, [
            "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--user-data-dir=\(dir.appendingPathComponent("profile").path)",
            "--screenshot=\(png.path)", "--window-size=1600,1000", page.absoluteString,
        ])
        #expect(status == 0)
        #expect(FileManager.default.fileExists(atPath: png.path), "Chromium wrote no screenshot")

        // The colours of the foreground band, the background band and the device rows (ReportColour).
        let wanted = [ReportColour.front, .background, .device].map { String($0.hex.dropFirst()) }
        // The request bands: waiting (the policies' patterns are drawn on it) and running.
        let requestColours = [ReportColour.waiting, .running].map { String($0.hex.dropFirst()) }
        #expect(try String(contentsOf: page, encoding: .utf8).contains("request held back by "))
        let (surveyStatus, survey) = try Self.execute("/usr/bin/env", ["python3", "-c", Self.pngSurvey, png.path]
                                                      + wanted + requestColours)
        #expect(surveyStatus == 0, "the PNG could not be read: \(survey)")
        let surveyLines = survey.split(separator: "\n")
        try #require(surveyLines.count == 2, "unexpected survey output: \(survey)")
        // The requests are drawn as bands: thousands of pixels in the policies' colours, in long
        // horizontal runs (a marker is ~12 px wide; a band a wait of hours).
        var pixels = 0, longest = 0
        for entry in surveyLines[1].split(separator: " ") {
            let parts = entry.split(separator: ":")
            guard parts.count == 3, requestColours.contains(String(parts[0])) else { continue }
            pixels += Int(parts[1]) ?? 0
            longest = max(longest, Int(parts[2]) ?? 0)
        }
        #expect(pixels >= 2000, "only \(pixels) pixels of request bands")
        #expect(longest >= 100, "the longest run of a request colour is \(longest) px: no band")
        let fields = surveyLines[0].split(separator: " ", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        try #require(fields.count >= 4, "unexpected survey output: \(survey)")
        #expect(fields[0] == "1600" && fields[1] == "1000")
        #expect((Int(fields[2]) ?? 0) >= 300, "only \(fields[2]) colours: a blank page?")
        #expect((Double(fields[3]) ?? 0) > 0.03, "only \(fields[3]) of the pixels are not white")
        let found = Set(fields.dropFirst(4).filter { !$0.isEmpty })
        for colour in wanted { #expect(found.contains(colour), "#\(colour) is not in the picture") }
    }
}
