import CatalogMirror

/// libFuzzer entry: any bytes as an RSS/Atom/sitemap feed and as a JSON listing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeeds(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? FeedScanner.scan(bytes, url: "http://fuzz.example/feed")
    _ = try? JSONListing.scan(bytes)
    return 0
}
