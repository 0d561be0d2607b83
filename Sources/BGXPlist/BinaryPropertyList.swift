import Foundation

/// A binary property list looked at before Foundation reads it. An
/// Info.plist holds dictionaries with string keys, arrays, strings, numbers,
/// booleans, dates and data; the binary format can also hold sets, ordered
/// sets and keyed-archive UIDs, and Foundation on Linux crashes bridging a
/// set to Swift (found by fuzzing: a top-level set of five strings). So those
/// are refused here, with where they are, as is a structure that points
/// outside the file.
public enum BinaryPropertyList {
    /// Why `data` cannot be an Info.plist, when it is a binary property list
    /// that holds what an Info.plist never does; nil otherwise (XML is read,
    /// and its errors located, elsewhere).
    public static func problem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        guard bytes.starts(with: Array("bplist".utf8)) else { return nil }
        var reader = Reader(bytes: bytes)
        do {
            try reader.check()
            return nil
        } catch {
            return error.description
        }
    }

    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The format: an 8-byte header, the objects, a table of their offsets,
    /// and a 32-byte trailer saying where the table is and how wide its numbers are.
    struct Reader {
        let bytes: [UInt8]
        var tableStart = 0, offsetSize = 0, refSize = 0, count = 0

        func malformed(_ what: String) -> Problem { Problem(description: "a malformed binary property list (\(what))") }

        func number(at start: Int, size: Int) throws(Problem) -> Int {
            guard start >= 0, size >= 1, size <= 8, start + size <= bytes.count else { throw malformed("a number past its end") }
            var value: UInt64 = 0
            for byte in bytes[start..<start + size] { value = value << 8 | UInt64(byte) }
            guard value <= UInt64(Int.max) else { throw malformed("a number out of range") }
            return Int(value)
        }

        mutating func check() throws(Problem) {
            guard bytes.count >= 8 + 1 + 32 else { throw malformed("too short for its header and trailer") }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            refSize = Int(bytes[trailer + 7])
            guard (1...8).contains(offsetSize), (1...8).contains(refSize) else { throw malformed("its trailer's sizes") }
            count = try number(at: trailer + 8, size: 8)
            let top = try number(at: trailer + 16, size: 8)
            tableStart = try number(at: trailer + 24, size: 8)
            guard count >= 1, top < count, tableStart >= 8, tableStart <= trailer,
                  count <= (trailer - tableStart) / offsetSize else { throw malformed("its offset table") }
            for object in 0..<count { try checkObject(object) }
        }

        func offset(of object: Int) throws(Problem) -> Int {
            let offset = try number(at: tableStart + object * offsetSize, size: offsetSize)
            guard offset >= 8, offset < tableStart else { throw malformed("object \(object) outside the objects") }
            return offset
        }

        /// An object's count: the marker's low nibble, or (0xF) the integer object after it.
        func length(at offset: Int) throws(Problem) -> (count: Int, next: Int) {
            let nibble = Int(bytes[offset] & 0x0F)
            guard nibble == 0x0F else { return (nibble, offset + 1) }
            guard offset + 1 < tableStart, bytes[offset + 1] & 0xF0 == 0x10 else { throw malformed("a length that is not an integer") }
            let size = 1 << Int(bytes[offset + 1] & 0x0F)
            guard size <= 8 else { throw malformed("a length wider than 8 bytes") }
            return (try number(at: offset + 2, size: size), offset + 2 + size)
        }

        /// The `n` references that start at `start`, each an object in the table.
        func references(at start: Int, _ n: Int) throws(Problem) -> [Int] {
            guard n <= (tableStart - start) / refSize else { throw malformed("references past the objects") }
            var refs: [Int] = []
            for k in 0..<n {
                let ref = try number(at: start + k * refSize, size: refSize)
                guard ref < count else { throw malformed("a reference to object \(ref) of \(count)") }
                refs.append(ref)
            }
            return refs
        }

        func checkObject(_ object: Int) throws(Problem) {
            let offset = try offset(of: object)
            let marker = bytes[offset]
            func refused(_ what: String) -> Problem {
                Problem(description: "a binary property list holding \(what) (object \(object)), which an Info.plist never holds")
            }
            switch marker >> 4 {
            case 0x0:
                // null, false, true, fill.
                guard [0x00, 0x08, 0x09, 0x0F].contains(marker) else { throw malformed("object \(object) of unknown type") }
            case 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7:
                break  // integers, reals, dates, data, strings: read by Foundation as they are
            case 0x8: throw refused("a UID (a keyed archive's reference)")
            case 0xA:
                let (n, start) = try length(at: offset)
                _ = try references(at: start, n)
            case 0xB: throw refused("an ordered set")
            case 0xC: throw refused("a set")
            case 0xD:
                let (n, start) = try length(at: offset)
                let keys = try references(at: start, n)
                _ = try references(at: start + n * refSize, n)
                for key in keys {
                    // A dictionary's keys are strings: ASCII, UTF-16 or UTF-8.
                    guard [0x5, 0x6, 0x7].contains(bytes[try self.offset(of: key)] >> 4) else {
                        throw refused("a dictionary key that is not a string")
                    }
                }
            default:
                throw malformed("object \(object) of unknown type 0x\(String(marker, radix: 16))")
            }
        }
    }
}
