import CatalogMirror

/// libFuzzer entry for the srcset parser: any text as a `srcset` value. Every candidate must be
/// well-formed (a non-empty URL with no ASCII whitespace and no trailing comma; a positive width,
/// a finite non-negative density, a height only with a width, never a width and a density), and
/// writing the candidates back out (`url Nw Nh` or `url Nx`, joined by ", ") must parse to the
/// same candidates. Each URL is then keyed against a base, which must not crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSrcset(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let candidates = Srcset.candidates(text)
    let spaces: Set<Unicode.Scalar> = [" ", "\t", "\n", "\r", "\u{0C}"]
    for candidate in candidates {
        precondition(!candidate.url.isEmpty && !candidate.url.unicodeScalars.contains(where: spaces.contains), "url \(candidate)")
        precondition(!candidate.url.hasSuffix(","), "trailing comma \(candidate)")
        precondition((candidate.width == nil) != (candidate.density == nil), "width xor density \(candidate)")
        precondition(candidate.width.map { $0 > 0 } ?? true, "width \(candidate)")
        precondition(candidate.density.map { $0.isFinite && $0 >= 0 } ?? true, "density \(candidate)")
        precondition(candidate.height.map { $0 > 0 && candidate.width != nil } ?? true, "height \(candidate)")
        _ = CanonicalURL(candidate.url, relativeTo: base)
    }
    let written = candidates.map { candidate in
        var text = candidate.url
        if let width = candidate.width { text += " \(width)w" }
        if let density = candidate.density { text += " \(density)x" }
        if let height = candidate.height { text += " \(height)h" }
        return text
    }.joined(separator: ", ")
    let again = Srcset.candidates(written)
    precondition(again == candidates, "round trip: \(candidates) → \(written) → \(again)")
    return 0
}

let base = CanonicalURL("http://fuzz.example/a/b/")!

/// SwiftPM links an executable with `main` aliased to `FuzzSrcset_main`; this hands control to
/// libFuzzer's driver, which parses the command line and calls the entry above.
@_cdecl("FuzzSrcset_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, fuzzSrcset)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt
