import BGXDigest
import Foundation
import Testing

/// Downloads are verified against SHA-256 from the system's libcrypto: the
/// digest itself is checked against the standard's test vectors (FIPS 180-2),
/// since the transfer tests' server computes its digests the same way. The
/// library is opened when the first digest begins, not linked.
@Suite struct DigestTests {
    @Test func sha256MatchesTheStandardsVectors() {
        #expect(SHA256.hex(of: Data("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Data()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256.hex(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("A daemon that has verified no download has not mapped libcrypto (1.4 MB resident once loaded)")
    func libcryptoIsOpenedOnlyForADigest() throws {
        let host = try LiveHost()
        defer { host.stop() }
        _ = try host.ctl("status")
        // Read to the end: /proc says its files are empty, and a read of the size it says stops short.
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(host.process.processIdentifier)/maps"))
        let maps = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        #expect(maps.contains("libswiftCore"))  // the maps are the daemon's, read while it runs
        #expect(!maps.contains("libcrypto"))
        #expect(SHA256.unavailable == nil)
    }

    @Test func aDigestFedInPiecesEqualsTheWhole() {
        let whole = Data((0..<1_000_003).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var hasher = SHA256()
        var offset = 0
        for piece in [1, 63, 64, 65, 4096, 1 << 20] where offset < whole.count {
            let end = min(whole.count, offset + piece)
            hasher.update(data: whole[offset..<end])
            offset = end
        }
        hasher.update(data: whole[offset...])
        #expect(hasher.finalize().hexString == SHA256.hex(of: whole))
    }
}
