import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Where an XML property list stops being one: the line and column of the
/// first thing that breaks it — XML that is not well formed, or XML that is
/// not a plist (an unknown element, a value without its key, a number that
/// is not one). `PropertyListSerialization` only says that it failed.
enum PlistSyntax {
    struct Problem: Error {
        var line: Int
        var column: Int
        var message: String
    }

    static func firstProblem(in data: Data) -> Problem? {
        if let encoding = declaredEncodingProblem(in: data) { return encoding }
        if let text = textProblem(in: data) { return text }
        if let instruction = processingInstructionProblem(in: data) { return instruction }
        let parser = XMLParser(data: data)
        let checker = Checker()
        parser.delegate = checker
        if !parser.parse() {
            if let found = checker.problem { return found }
            let reason = parser.parserError.map { describe($0) } ?? "not well-formed XML"
            return Problem(line: max(1, parser.lineNumber), column: max(1, parser.columnNumber),
                           message: "malformed XML: \(reason)")
        }
        return checker.problem
    }

    /// An XML property list is UTF-8 text, and bytes that are not (or a NUL)
    /// are refused before XMLParser sees them: libxml2 guesses the encoding
    /// from the first four bytes, and `00 00 00 3C` (UCS-4) sends it through
    /// iconv into a crash (found by fuzzing).
    static func textProblem(in data: Data) -> Problem? {
        let bytes = Array(data)
        var line = 1, lineStart = 0, i = 0
        while i < bytes.count {
            let byte = bytes[i]
            // The length of the UTF-8 sequence a lead byte starts, and the range its second byte must be in
            // (which rules out overlong forms, surrogates and code points past U+10FFFF).
            let length: Int, second: ClosedRange<UInt8>
            switch byte {
            case 0x01...0x7F:
                if byte == UInt8(ascii: "\n") { line += 1; lineStart = i + 1 }
                i += 1
                continue
            case 0xC2...0xDF: (length, second) = (2, 0x80...0xBF)
            case 0xE0: (length, second) = (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (length, second) = (3, 0x80...0xBF)
            case 0xED: (length, second) = (3, 0x80...0x9F)
            case 0xF0: (length, second) = (4, 0x90...0xBF)
            case 0xF1...0xF3: (length, second) = (4, 0x80...0xBF)
            case 0xF4: (length, second) = (4, 0x80...0x8F)
            default: (length, second) = (0, 0...0)  // NUL, a continuation byte alone, or never UTF-8
            }
            let valid = length > 0 && i + length <= bytes.count && second.contains(bytes[i + 1])
                && bytes[(i + 2)..<(i + length)].allSatisfy { (0x80...0xBF).contains($0) }
            guard valid else {
                let what = byte == 0 ? "a NUL byte" : "a byte that is not UTF-8 (0x\(String(byte, radix: 16, uppercase: true)))"
                return Problem(line: line, column: i - lineStart + 1,
                               message: "\(what); a property list in XML is UTF-8 text")
            }
            i += length
        }
        return nil
    }

    /// A property list is UTF-8, and one declaring another encoding is refused
    /// before XMLParser sees it: the libxml2 under it (2.9) can crash switching
    /// to an encoding it reaches through iconv — `<?xml version="1.0"
    /// encoding="UTF7"` and one stray byte is enough (found by fuzzing).
    static func declaredEncodingProblem(in data: Data) -> Problem? {
        // The declaration is the document's first thing (after a byte order mark), in ASCII.
        let head = Array(data.prefix(256))
        let start = head.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard head[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        let declaration = String(decoding: head[start...].prefix { $0 != UInt8(ascii: ">") }.map { $0 < 0x80 ? $0 : 0x3F },
                                 as: UTF8.self)
        guard let name = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[name.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        let value = rest.dropFirst().prefix { $0 != "\"" && $0 != "'" }
        let quoted = rest.first == "\"" || rest.first == "'"
        if quoted, rest.dropFirst(value.count + 1).first == rest.first, ["utf-8", "utf8"].contains(value.lowercased()) {
            return nil
        }
        let column = start + declaration.distance(from: declaration.startIndex, to: name.lowerBound) + 1
        return Problem(line: 1, column: column,
                       message: "the XML declaration's encoding is \(quoted ? "'\(value)'" : "not a quoted name"); "
                           + "a property list is UTF-8 (encoding=\"UTF-8\")")
    }

    /// A property list has no processing instruction but the XML declaration,
    /// and one is refused before XMLParser sees it: XMLParser crashes on a
    /// `<?target?>` without data (found by fuzzing).
    static func processingInstructionProblem(in data: Data) -> Problem? {
        let bytes = Array(data)
        var line = 1, lineStart = 0
        for i in bytes.indices {
            if bytes[i] == UInt8(ascii: "\n") { line += 1; lineStart = i + 1 }
            guard bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "?") else { continue }
            let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
            if i == start, bytes[i...].starts(with: Array("<?xml".utf8)) { continue }
            return Problem(line: line, column: i - lineStart + 1,
                           message: "a processing instruction (<?…?>): a property list has none but the XML declaration")
        }
        return nil
    }

    static func describe(_ error: Error) -> String {
        let code = (error as NSError).code
        // libxml2's codes, as XMLParser reports them, for the usual mistakes.
        switch code {
        case 76: return "a closing tag does not match the element it closes"
        case 5, 77: return "the document ends inside an element"
        case 73: return "'>' is missing from a tag"
        case 68: return "an unescaped '&' or '<' in text"
        default: return "not well-formed XML (libxml2 error \(code))"
        }
    }

    /// Follows the plist grammar element by element.
    final class Checker: NSObject, XMLParserDelegate {
        static let values: Set<String> = ["dict", "array", "string", "integer", "real", "true", "false", "date", "data"]
        var problem: Problem?
        /// Open elements; for a dict, whether a key is waiting for its value.
        var stack: [(name: String, keyPending: Bool)] = []
        var text = ""

        func fail(_ parser: XMLParser, _ message: String) {
            guard problem == nil else { return }
            problem = Problem(line: max(1, parser.lineNumber), column: max(1, parser.columnNumber), message: message)
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            text = ""
            if stack.isEmpty {
                guard name == "plist" else { return fail(parser, "the document is <\(name)>, not a <plist>") }
                stack.append((name, false))
                return
            }
            let parent = stack[stack.count - 1]
            if name == "key" {
                guard parent.name == "dict" else { return fail(parser, "<key> outside a <dict>") }
                guard !parent.keyPending else { return fail(parser, "a <key> follows a <key>: the first has no value") }
            } else {
                guard Self.values.contains(name) else { return fail(parser, "<\(name)> is not a property list element") }
                if parent.name == "dict" && !parent.keyPending { return fail(parser, "<\(name)> in a <dict> without a <key> before it") }
                if ["string", "integer", "real", "true", "false", "date", "data", "key"].contains(parent.name) {
                    return fail(parser, "<\(name)> inside <\(parent.name)>")
                }
            }
            stack.append((name, false))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
            fail(parser, "malformed XML: \(PlistSyntax.describe(parseError))")
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            guard problem == nil, !stack.isEmpty else { return }
            // libxml2 may recover from a mismatched tag; a plist may not.
            guard stack[stack.count - 1].name == name else {
                return fail(parser, "malformed XML: </\(name)> closes <\(stack[stack.count - 1].name)>")
            }
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            switch name {
            case "integer" where Int64(value) == nil: return fail(parser, "<integer> holds '\(value)', not a whole number")
            case "real" where Double(value) == nil: return fail(parser, "<real> holds '\(value)', not a number")
            case "true", "false": if !value.isEmpty { return fail(parser, "<\(name)/> holds text") }
            default: break
            }
            let closed = stack.removeLast()
            if closed.name == "dict" && closed.keyPending { return fail(parser, "the last <key> in this <dict> has no value") }
            if !stack.isEmpty, stack[stack.count - 1].name == "dict" {
                stack[stack.count - 1].keyPending = name == "key"
            }
            text = ""
        }
    }
}
