import CatalogMirror

/// libFuzzer entry: any text as a URL reference, resolved against a base, canonicalized twice
/// (the canonical form must be a fixed point), and turned into a file name (which must stay a
/// safe single path segment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeys(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let base = CanonicalURL("http://fuzz.example/a/b/c?q")!
    for candidate in [CanonicalURL(text), CanonicalURL(text, relativeTo: base)] {
        guard let key = candidate else { continue }
        precondition(key.string.utf8.allSatisfy { $0 < 0x80 && $0 > 0x20 }, "non-ASCII or control in \(key)")
        let again = CanonicalURL(key.string)
        precondition(again == key, "not idempotent: \(key) → \(again?.string ?? "nil")")
        let name = FileNamer.fileName(key: key, title: text, sha256: "00", format: .png)
        precondition(!name.contains("/") && !name.contains("..") && !name.hasPrefix(".") && name.utf8.count <= 80, "unsafe name \(name)")
    }
    return 0
}
