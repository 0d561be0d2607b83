import CLibCrypto
import Foundation

/// SHA-256 from the system's libcrypto, named as CryptoKit names it.
///
/// Why not swift-crypto: it compiles a BoringSSL of its own, and AsyncHTTPClient
/// already brings one (swift-nio-ssl's); a second copy for one digest cost more
/// build time than anything else in the live host. libcrypto is on every Linux
/// that has OpenSSL (Debian: `libssl-dev` for the headers).
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    public init() {
        // Allocation fails only when memory is exhausted; nothing sensible goes on.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto could not start a SHA-256 digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public mutating func update<Bytes: DataProtocol>(data: Bytes) {
        for region in data.regions {
            region.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
                _ = EVP_DigestUpdate(context, base, buffer.count)
            }
        }
    }

    /// The 32 bytes of the digest.
    public consuming func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &digest, &length)
        return Array(digest.prefix(Int(length)))
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
