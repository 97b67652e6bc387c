/// Byte strings back to back in one buffer, each found by its number: many short texts held
/// without an allocation (and a 16-byte `String`) each. The previous manifest's keys and the
/// file names a manifest references are kept this way.
struct PackedBytes: Sendable {
    private var bytes: [UInt8] = []
    private var ends: [UInt32] = []

    var count: Int { ends.count }

    mutating func reserveCapacity(count: Int, bytes byteCount: Int) {
        ends.reserveCapacity(count)
        bytes.reserveCapacity(byteCount)
    }

    mutating func append(_ value: some Sequence<UInt8>) {
        bytes.append(contentsOf: value)
        ends.append(UInt32(bytes.count))
    }

    /// The bytes of the `number`th string.
    subscript(number: Int) -> ArraySlice<UInt8> {
        bytes[(number == 0 ? 0 : Int(ends[number - 1]))..<Int(ends[number])]
    }

    /// The same strings in buffers of their size: grown by doubling, they kept up to twice the
    /// room they need.
    func fitted() -> PackedBytes {
        var fitted = PackedBytes()
        fitted.reserveCapacity(count: ends.count, bytes: bytes.count)
        fitted.bytes.append(contentsOf: bytes)
        fitted.ends.append(contentsOf: ends)
        return fitted
    }
}
