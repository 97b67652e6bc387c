import CatalogMirror

/// libFuzzer entry: any text as a URL reference, resolved against a base, canonicalized twice
/// (the canonical form must be a fixed point), and turned into a file name (which must stay a
/// safe single path segment).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeys(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let base = CanonicalURL("http://fuzz.example/a/b/c?q")!
    for candidate in [CanonicalURL(text), CanonicalURL(text, relativeTo: base)] {
        guard let key = candidate else { continue }
        precondition(key.string.utf8.allSatisfy { $0 < 0x80 && $0 > 0x20 }, "non-ASCII or control in \(key)")
        let again = CanonicalURL(key.string)
        precondition(again == key, "not idempotent: \(key) → \(again?.string ?? "nil")")
        let name = FileNamer.fileName(key: key, title: text, sha256: "00", format: .png)
        precondition(
            !name.contains("/") && !name.contains("..") && !name.hasPrefix(".") && name.utf8.count <= 80, "unsafe name \(name)")
    }
    return 0
}

/// SwiftPM links an executable with `main` aliased to `FuzzKeys_main`; this hands control to
/// libFuzzer's driver, which parses the command line and calls the entry above.
@_cdecl("FuzzKeys_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzKeys)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
