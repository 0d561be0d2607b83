import CBGXCrypto
import Foundation

/// SHA-256 from the system's libcrypto, named as CryptoKit names it.
///
/// Why not swift-crypto: it compiles a BoringSSL of its own, which for one digest
/// cost more build time than anything else in the live host. libcrypto is on every Linux
/// that has OpenSSL (Debian's `libssl3`, which curl and so Foundation need); it is
/// opened when the first digest begins (CBGXCrypto), so a daemon that verifies
/// no download never maps it, and building needs no OpenSSL headers.
public struct SHA256: ~Copyable {
    private let context: UnsafeMutableRawPointer

    /// Why no digest can be made here (no libcrypto could be loaded), or nil.
    public static var unavailable: String? { bgx_crypto_failure().map { String(cString: $0) } }

    public init() {
        // Fails only without a libcrypto on the machine, or with memory exhausted:
        // nothing sensible goes on then.
        guard let context = bgx_sha256_begin() else {
            fatalError("SHA-256: \(Self.unavailable ?? "libcrypto could not start a digest")")
        }
        self.context = context
    }

    deinit { bgx_sha256_free(context) }

    public mutating func update<Bytes: DataProtocol>(data: Bytes) {
        for region in data.regions {
            region.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
                bgx_sha256_update(context, base, buffer.count)
            }
        }
    }

    /// The 32 bytes of the digest.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        bgx_sha256_end(context, &digest)
        discard self
        return digest
    }

    public static func hash<Bytes: DataProtocol>(data: Bytes) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }

    /// The digest as lowercase hex, as downloads and the trace write it.
    public static func hex<Bytes: DataProtocol>(of data: Bytes) -> String {
        hash(data: data).hexString
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hex, two digits a byte.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
