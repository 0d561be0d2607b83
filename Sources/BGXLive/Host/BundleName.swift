/// What a bundle identifier may be, and the one name on disk (a cgroup, a
/// log, a container) each identifier gets. Names are derived by escaping,
/// never by pasting: distinct identifiers always get distinct names, and no
/// name is `.`, `..`, hidden, or holds a `/`.
public enum BundleName {
    /// iOS's rule for `CFBundleIdentifier`: alphanumerics (A–Z, a–z, 0–9),
    /// hyphen and period, at most 155 characters (App Store Connect's bound).
    public static let maximumLength = 155

    /// Why `identifier` is not a bundle identifier, or nil.
    public static func problem(with identifier: String) -> String? {
        let bytes = Array(identifier.utf8)
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > maximumLength { return "it is \(bytes.count) bytes long, over \(maximumLength)" }
        if let bad = bytes.first(where: { !isAllowed($0) }) {
            return "it holds \(describe(bad)): only letters A–Z and a–z, digits, hyphen (-) and period (.) are allowed"
        }
        if !bytes.contains(where: { $0 != UInt8(ascii: ".") }) { return "it is only periods" }
        return nil
    }

    /// The file or cgroup name for an identifier: letters, digits and hyphens
    /// as they are, a period as it is unless it comes first, and every other
    /// byte (a leading period, `_`, `/`, a newline …) as `_` and two hex
    /// digits. `_` is always escaped, so the mapping is one to one.
    public static func escaped(_ identifier: String) -> String {
        var out = ""
        for (i, b) in identifier.utf8.enumerated() {
            if isAlphanumericOrHyphen(b) || (b == UInt8(ascii: ".") && i > 0) {
                out.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                out += "_" + hex(b)
            }
        }
        return out
    }

    static func isAlphanumericOrHyphen(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-")
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(b >> 4)]) + String(digits[Int(b & 15)])
    }

    static func isAllowed(_ b: UInt8) -> Bool { isAlphanumericOrHyphen(b) || b == UInt8(ascii: ".") }

    static func describe(_ b: UInt8) -> String {
        b >= 0x20 && b < 0x7F ? "'\(Character(Unicode.Scalar(b)))'" : "byte 0x" + hex(b)
    }
}
