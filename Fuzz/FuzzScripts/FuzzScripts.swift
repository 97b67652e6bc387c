import CatalogMirror

/// libFuzzer entry: any bytes as an inline script (JavaScript or JSON-LD) and as a JSON
/// document (a listing, a JSON Feed, a data file): what `ScriptReader` and `JSONReader` read.
/// Every input must end, in bounded memory (`Fuzz/run` sets `-timeout` and `-rss_limit_mb`),
/// with keys that are plain ASCII.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzScripts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let base = CanonicalURL("http://fuzz.example/gallery/")!
    for kind in [FileExtraction.Kind.script, .json] {
        guard let keys = try? FileExtraction.keys(in: bytes, kind: kind, base: base) else { continue }
        for key in keys {
            precondition(key.string.utf8.allSatisfy { $0 < 0x80 && $0 > 0x20 }, "non-ASCII key \(key)")
        }
    }
    return 0
}

/// SwiftPM links an executable with `main` aliased to `FuzzScripts_main`; this hands control to
/// libFuzzer's driver, which parses the command line and calls the entry above.
@_cdecl("FuzzScripts_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzScripts)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
