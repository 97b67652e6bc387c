import CatalogMirror

/// libFuzzer entry: any bytes as an HTML page, with and without a declared charset.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTML(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let encoding: String? = bytes.first.map { $0 & 1 == 0 ? nil : "ISO-8859-1" } ?? nil
    guard let page = try? HTMLScanner.scan(bytes, url: "http://fuzz.example/gallery/", encoding: encoding) else { return 0 }
    // Whatever the page holds must resolve to ASCII keys or be dropped.
    let base = CanonicalURL("http://fuzz.example/gallery/")!
    let pageBase = page.baseHref.flatMap { CanonicalURL($0, relativeTo: base) } ?? base
    for reference in page.images {
        if let key = CanonicalURL(reference.url, relativeTo: pageBase) {
            precondition(key.string.utf8.allSatisfy { $0 < 0x80 && $0 > 0x20 }, "non-ASCII key \(key)")
        }
    }
    return 0
}

/// SwiftPM links an executable with `main` aliased to `FuzzHTML_main`; this hands control to
/// libFuzzer's driver, which parses the command line and calls the entry above.
@_cdecl("FuzzHTML_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzHTML)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
