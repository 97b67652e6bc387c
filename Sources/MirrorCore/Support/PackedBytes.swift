import Foundation

/// Byte strings back to back in one buffer, each found by its number: many short texts held
/// without an allocation (and a 16-byte `String`) each. The previous manifest's keys and the
/// file names a manifest references are kept this way.
package struct PackedBytes: Sendable {
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    package init() {}

    package var count: Int { ends.count }

    package mutating func reserveCapacity(count: Int, bytes byteCount: Int) {
        ends.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    package mutating func append(_ value: some Sequence<UInt8>) {
        bytes.append(contentsOf: value)
        ends.append(UInt32(bytes.count))
    }

    /// The bytes of the `number`th string.
    package subscript(number: Int) -> ArraySlice<UInt8> {
        bytes[(number == 0 ? 0 : Int(ends[number - 1]))..<Int(ends[number])]
    }

    /// The strings' numbers in byte order of the strings (equal strings in the order of their
    /// numbers): one `memcmp` of the buffer a comparison, no reference counting.
    package func byteOrder() -> [Int] {
        var order = Array(0..<ends.count)
        bytes.withUnsafeBufferPointer { all in
            ends.withUnsafeBufferPointer { ends in
                guard let base = all.baseAddress else { return }
                order.sort { a, b in
                    let (aStart, bStart) = (a == 0 ? 0 : Int(ends[a - 1]), b == 0 ? 0 : Int(ends[b - 1]))
                    let (aCount, bCount) = (Int(ends[a]) - aStart, Int(ends[b]) - bStart)
                    let common = min(aCount, bCount)
                    let order = common == 0 ? 0 : memcmp(base + aStart, base + bStart, common)
                    return order != 0 ? order < 0 : aCount != bCount ? aCount < bCount : a < b
                }
            }
        }
        return order
    }

    /// The same strings in buffers of their size: grown by doubling, they kept up to twice the
    /// room they need.
    package func fitted() -> PackedBytes {
        var fitted = PackedBytes()
        fitted.reserveCapacity(count: ends.count, bytes: bytes.count)
        fitted.bytes.append(contentsOf: bytes)
        fitted.ends.append(contentsOf: ends)
        return fitted
    }
}

/// Byte-order comparison of UTF-8 texts (keys, file names) with one `memcmp`: the order SQLite's
/// `BINARY` collation and the manifest use. `lexicographicallyPrecedes` and `elementsEqual` over
/// the views compare a byte at a time through generic iterators, on every key sorted and
/// walked in the plan and the finish.
package enum ByteOrder {
    /// Negative, zero or positive as `a` sorts before, equal to, or after `b`.
    package static func compare(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Int {
        let fast = a.withContiguousStorageIfAvailable { x in
            b.withContiguousStorageIfAvailable { y in compare(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }
        if let fast, let result = fast { return result }
        if a.lexicographicallyPrecedes(b) { return -1 }
        return a.elementsEqual(b) ? 0 : 1
    }

    package static func precedes(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool { compare(a, b) < 0 }

    package static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        a.count == b.count && compare(a, b) == 0
    }

    private static func compare(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Int {
        let common = min(x.count, y.count)
        if common > 0, let left = x.baseAddress, let right = y.baseAddress {
            let order = memcmp(left, right, common)
            if order != 0 { return Int(order) }
        }
        return x.count - y.count
    }
}
