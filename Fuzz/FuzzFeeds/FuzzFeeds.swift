import CatalogMirror

/// libFuzzer entry: any bytes as an RSS/Atom/sitemap feed and as a JSON listing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeeds(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? FeedScanner.scan(bytes, url: "http://fuzz.example/feed")
    _ = try? JSONReader.read(bytes)
    return 0
}

/// SwiftPM links an executable with `main` aliased to `FuzzFeeds_main`; this hands control to
/// libFuzzer's driver, which parses the command line and calls the entry above.
@_cdecl("FuzzFeeds_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzFeeds)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
