import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Key extraction from a local file through the code the crawler runs on fetched bytes: a feed
/// is streamed through `FeedStreamParser` in 64 KB chunks (as it arrives from a socket), a page
/// goes through `HTMLScanner`, and every reference becomes a canonical key. It exists for the
/// benchmark's parser row (`Benchmarks/bench.py`), which times it against `xmllint`.
public enum FileExtraction {
    /// What the file holds, and so which reader extracts its keys.
    public enum Kind: String, Sendable, CaseIterable {
        /// A feed, listing or sitemap, streamed through `FeedStreamParser` in 64 KB chunks.
        case feed
        /// An HTML page, read whole with `HTMLScanner`.
        case html
    }

    /// The file could not be opened, read or parsed.
    public struct Failure: Error, CustomStringConvertible {
        /// One line naming the file and what went wrong.
        public let description: String
    }

    /// The keys found in the file at `path`, read as a document fetched from `base`.
    ///
    /// - Throws: ``Failure`` naming `path` when it cannot be opened or read, or is not a
    ///   document of `kind`.
    public static func keys(inFileAt path: String, kind: Kind, base: CanonicalURL) throws(Failure) -> [CanonicalURL] {
        switch kind {
        case .feed: return try feedKeys(path, base: base)
        case .html: return try pageKeys(path, base: base)
        }
    }

    private static func feedKeys(_ path: String, base: CanonicalURL) throws(Failure) -> [CanonicalURL] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let parser = FeedStreamParser(url: base.string)
        var keys: [CanonicalURL] = []
        func take(_ references: [ImageReference]) {
            for reference in references where !Crawler.isInert(reference) {
                if let discovery = Crawler.discovery(reference, base: base) { keys.append(discovery.key) }
            }
        }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read \(path): \(String(cString: strerror(errno)))")
            }
            let fed = buffer.withUnsafeBytes { raw in
                Result { () throws(MarkupError) in
                    got == 0 ? try parser.finish() : try parser.feed(UnsafeRawBufferPointer(rebasing: raw.prefix(got)))
                }
            }
            switch fed {
            case .success(let references): take(references)
            case .failure(let error): throw Failure(description: "\(path) is not a feed: \(error)")
            }
            if got == 0 { break }
        }
        return keys
    }

    private static func pageKeys(_ path: String, base: CanonicalURL) throws(Failure) -> [CanonicalURL] {
        // The page's bytes once, as the crawler holds a fetched page (`Data` and a copy of it
        // were both alive through the scan).
        let bytes: [UInt8]
        do {
            guard let data = FileManager.default.contents(atPath: path) else { throw Failure(description: "cannot read \(path)") }
            bytes = Array(data)
        }
        let scan: PageScan
        do {
            scan = try HTMLScanner.scan(bytes, url: base.string)
        } catch {
            throw Failure(description: "\(path) is not HTML: \(error)")
        }
        let pageBase = scan.baseHref.flatMap { CanonicalURL($0, relativeTo: base) } ?? base
        return scan.images.compactMap { reference in
            Crawler.isInert(reference) ? nil : Crawler.discovery(reference, base: pageBase)?.key
        }
    }
}
