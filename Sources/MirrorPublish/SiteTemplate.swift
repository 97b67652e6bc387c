import Foundation
import MirrorCore
import Mustache

/// The templates and assets of the generated site: `page.mustache` renders each page, and
/// every other file (the `assets/` folder) is copied into the mirror as it is.
package struct SiteTemplate: Sendable {
    /// The page template.
    let page: MustacheTemplate
    /// The page template's source text.
    let pageSource: String
    /// Files copied verbatim, by path relative to the mirror root.
    let assets: [String: [UInt8]]

    /// The default template compiled into the binary (from `site-template/`).
    ///
    /// - Throws: ``PublishError`` only if the embedded files are broken (a build problem).
    package static func embedded() throws(PublishError) -> SiteTemplate {
        var files: [String: [UInt8]] = [:]
        // `embeddedFiles` is written at build time by the EmbedFolder plugin from `site-template/`.
        for (path, base64) in embeddedFiles { files[path] = Data(base64Encoded: base64).map { Array($0) } ?? [] }
        return try SiteTemplate(files: files, origin: "the built-in template")
    }

    /// A template directory given with `--template DIR`: `page.mustache` plus any assets.
    ///
    /// - Throws: ``PublishError`` naming the directory or file when it cannot be read, has no
    ///   `page.mustache`, or the template does not parse.
    package static func load(from directory: URL) throws(PublishError) -> SiteTemplate {
        let fileManager = FileManager.default
        guard let enumerator = fileManager.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey]) else {
            throw PublishError(.template, "cannot read the template directory \(directory.path) (check the --template path)")
        }
        var files: [String: [UInt8]] = [:]
        let rootPath = directory.standardizedFileURL.path
        for case let url as URL in enumerator {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(rootPath.count)).drop { $0 == "/" }
            guard let data = fileManager.contents(atPath: url.path) else {
                throw PublishError(.template, "cannot read the template file \(url.path) (check its permissions)")
            }
            files[String(relative)] = Array(data)
        }
        return try SiteTemplate(files: files, origin: directory.path)
    }

    init(files: [String: [UInt8]], origin: String) throws(PublishError) {
        guard let pageBytes = files["page.mustache"] else {
            throw PublishError(.template, "\(origin) has no page.mustache (copy site-template/ and edit it)")
        }
        pageSource = String(decoding: pageBytes, as: UTF8.self)
        do {
            // Parsed as written first, so an error names the template's own lines; then with
            // the cheaper escaping's pragma line before them (`PageEscaping`).
            _ = try MustacheTemplate(string: pageSource)
            page = try MustacheTemplate(string: PageEscaping.pragma + pageSource)
        } catch {
            throw PublishError(
                .template, "\(origin)/page.mustache is not a valid Mustache template: \(error) (fix it, or drop --template)")
        }
        assets = files.filter { path, _ in
            path != "page.mustache" && !path.hasSuffix(".mustache")
                && !path.split(separator: "/").contains { $0.hasPrefix(".") || $0 == ".." }
        }
    }
}
