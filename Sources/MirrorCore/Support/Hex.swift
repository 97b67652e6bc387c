extension Sequence where Element == UInt8 {
    /// Lower-case hexadecimal, two digits a byte.
    ///
    /// Written into the string's own storage in one allocation: an array of digits turned into a
    /// string made dozens of allocations for each SHA-256 of a download
    /// (`Benchmarks/results/per-item-cpu.md`).
    package var hexString: String {
        withContiguousStorageIfAvailable { Self.hex($0) } ?? Array(self).withUnsafeBufferPointer { Self.hex($0) }
    }

    private static func hex(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = hexDigit(byte >> 4)
                out[2 * index + 1] = hexDigit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
