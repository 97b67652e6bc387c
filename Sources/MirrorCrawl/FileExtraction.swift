import Foundation
import MirrorCore
import MirrorMarkup

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Key extraction from a local file through the code the crawler runs on fetched bytes: a feed
/// is streamed through `FeedStreamParser` in 64 KB chunks (as it arrives from a socket), a page
/// goes through `HTMLScanner`, a JSON document through `JSONReader`, a script through
/// `ScriptReader`, and every reference becomes a canonical key. It exists for the benchmark's
/// parser row (`Benchmarks/bench.py`), which times it against `xmllint`, and for the fuzz
/// targets (`Fuzz/`), which hand it any bytes.
package enum FileExtraction {
    /// What the file holds, and so which reader extracts its keys.
    package enum Kind: String, Sendable, CaseIterable {
        /// A feed, listing or sitemap, streamed through `FeedStreamParser` in 64 KB chunks.
        case feed
        /// An HTML page, read whole with `HTMLScanner`.
        case html
        /// A JSON document (a listing, a JSON Feed, a data file), read whole with `JSONReader`.
        case json
        /// A script's text, as an inline `<script>` holds it, read with `ScriptReader`.
        case script
    }

    /// The file could not be opened, read or parsed.
    package struct Failure: Error, CustomStringConvertible {
        /// One line naming the file and what went wrong.
        package let description: String
    }

    /// The keys found in the file at `path`, read as a document fetched from `base`.
    ///
    /// - Throws: ``Failure`` naming `path` when it cannot be opened or read, or is not a
    ///   document of `kind`.
    package static func keys(inFileAt path: String, kind: Kind, base: CanonicalURL) throws(Failure) -> [CanonicalURL] {
        switch kind {
        case .feed: return try feedKeys(path, base: base)
        case .html, .json, .script:
            // The bytes once, as the crawler holds a fetched document (the `Data` is gone before
            // the read starts, or a page's memory a photo would count it twice).
            let bytes: [UInt8]
            do {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw Failure(description: "cannot read \(path)")
                }
                bytes = Array(data)
            }
            do {
                return try keys(in: bytes, kind: kind, base: base)
            } catch {
                throw Failure(description: "\(path): \(error.description)")
            }
        }
    }

    /// The keys found in `bytes`, read as a document of `kind` fetched from `base` (a feed is
    /// fed to the streaming parser in one piece).
    ///
    /// - Throws: ``Failure`` when the bytes are not a document of `kind` (a script never fails).
    package static func keys(in bytes: [UInt8], kind: Kind, base: CanonicalURL) throws(Failure) -> [CanonicalURL] {
        let references: [ImageReference]
        var documentBase = base
        switch kind {
        case .feed:
            do {
                references = try FeedScanner.scan(bytes, url: base.string).images
            } catch {
                throw Failure(description: "not a feed: \(error)")
            }
        case .html:
            let scan: PageScan
            do {
                scan = try HTMLScanner.scan(bytes, url: base.string)
            } catch {
                throw Failure(description: "not HTML: \(error)")
            }
            documentBase = scan.baseHref.flatMap { CanonicalURL($0, relativeTo: base) } ?? base
            references = scan.images
        case .json:
            do {
                references = try JSONReader.read(bytes)
            } catch {
                throw Failure(description: error.description)
            }
        case .script:
            var next = 0
            references = ScriptReader.read(bytes, origin: .inline).photos.flatMap { photo in
                defer { next += 1 }
                return photo.map { rendition in
                    var rendition = rendition
                    rendition.photo = next
                    return rendition
                }
            }
        }
        return references.compactMap { reference in
            Crawler.isInert(reference) ? nil : Crawler.discovery(reference, base: documentBase)?.key
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

}
