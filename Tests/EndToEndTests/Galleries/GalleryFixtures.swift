import Crypto
import Foundation
import Testing

extension Tag {
    /// Tests that mirror galleries written by real static gallery generators (sigal, llgal,
    /// lazygal, fgallery, igal2, jigl) and hand-written galleries of other kinds: `swift test --filter GeneratedGalleryTests`.
    @Tag static var generatedGalleries: Self
}

/// What a mirror of one fixture gallery must hold, as `Scripts/build_galleries.py` writes it.
/// Paths are relative to the gallery's root URL (`""` is the root directory itself).
struct GalleryTruth: Decodable, Sendable {
    /// One photo of the source: every URL the site links for it, and which one is the largest.
    struct Photo: Decodable, Sendable {
        var id: String
        var title: String?
        /// The page where the photo first appears, breadth-first from the start page.
        var album: String
        var largest: String
        /// Every rendition the site links, smallest first, `largest` included.
        var renditions: [String]
        /// Renditions a mirror may publish or not (tied to the photo when it does).
        var optional: [String]
    }

    /// A page that is the `album` of at least one photo, with the text its title must contain.
    struct Album: Decodable, Sendable, Equatable {
        var path: String
        var title: String
    }

    var name: String
    var start: String
    var siteTitle: String
    var albums: [Album]
    var photos: [Photo]
    /// Images that are not photos of the set but may be published (album collages).
    var extras: [String]
    /// Images that must never be published: icons, arrows, spinners, theme images.
    var decorations: [String]
    /// Photos on disk that no page of the site links (the generator's behaviour), for the record.
    var unreachable: [String]
}

/// The fixture galleries, built once per test run (and reused across runs while the scripts are
/// unchanged) by `Scripts/build_galleries.py` into a directory under the system temporary directory.
enum GalleryFixtures {
    /// The galleries written by real generators; each needs its generator installed.
    static let generated = [
        "sigal-colorbox", "sigal-photoswipe", "sigal-galleria", "llgal", "lazygal", "fgallery", "igal2", "igal2-slides", "jigl",
    ]
    /// The hand-written galleries of other markup kinds (need only python3 with Pillow), the
    /// issue-45 ones (`realPhotographs`) made of real photographs too.
    static let handwritten = ["wordpress", "zenphoto", "lazyload", "inline-data", "json-data"] + realPhotographs
    /// Issue 45, "a photo is its pixels": the galleries made of real photographs (the Debian
    /// wallpapers, `Scripts/real_photos.py`), where only the pixels tell which images are one photo.
    /// igal2 (with its defaults, and with slides: `igal2-slides`) and jigl preload the next photo in
    /// a script on each photo page; the hand-written ones
    /// are described in `Scripts/handwritten.py`.
    static let realPhotographs = ["preload-script", "crops", "related-names", "lazy-bg", "apache-listing", "hostile-listing"]
    /// Every gallery of issue 45: the two generators' and the hand-written ones.
    static let pixelGalleries = ["igal2", "igal2-slides", "jigl"] + realPhotographs

    /// What building gallery `name` needs beside python3: Pillow draws the photo set (all but
    /// `no-image`, which has no picture), and a generated gallery needs its generator and the
    /// tools it resizes with.
    static func tools(_ name: String) -> [ExternalTool] {
        switch name {
        case "no-image": []
        case "sigal-colorbox", "sigal-photoswipe", "sigal-galleria": [.pillow, .sigal]
        case "llgal": [.pillow, .llgal, .imageMagick]
        case "lazygal": [.pillow, .lazygal]
        case "fgallery": [.pillow, .fgallery, .imageMagick, .tificc]
        case "igal2", "igal2-slides": [.pillow, .realPhotographs, .igal2, .imageMagick]
        case "jigl": [.pillow, .realPhotographs, .jigl, .imageMagick]
        case _ where realPhotographs.contains(name): [.pillow, .realPhotographs]
        default: [.pillow]
        }
    }

    /// Every tool some gallery needs, for the fixtures' cache key.
    private static let everyTool: [ExternalTool] = [
        .pillow, .sigal, .llgal, .lazygal, .fgallery, .imageMagick, .tificc, .igal2, .jigl, .realPhotographs,
    ]
    /// Every gallery that has photos, or those named in `GALLERIES` (comma-separated), to look
    /// at one: `GALLERIES=llgal swift test --filter GeneratedGalleryTests`.
    static let all: [String] = {
        let every = generated + handwritten
        guard let chosen = ProcessInfo.processInfo.environment["GALLERIES"]?.split(separator: ",").map(String.init),
            !chosen.isEmpty
        else { return every }
        return every.filter(chosen.contains)
    }()

    /// The URL path each gallery is served under: generated galleries live in a sub-directory of
    /// their host, as most users put them; the hand-written ones use root-absolute links.
    static func mount(_ name: String) -> String {
        generated.contains(name) ? "/photos/" : "/"
    }

    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Scripts")

    private static let build = Task<Result<URL, FixtureError>, Never> { await buildOnce() }

    /// The directory holding `sites/`, `truth/` and `status.json`, built on first use.
    static func root() async throws -> URL {
        try await build.value.get()
    }

    /// The site directory and ground truth of gallery `name`. When a tool it needs is missing the
    /// test is skipped with a note (failed under CI: `ExternalTool.require`); when the tools are
    /// there and `build_galleries.py` still reports the gallery missing or failed, the test fails
    /// with its reason.
    static func gallery(_ name: String) async throws -> (site: URL, truth: GalleryTruth) {
        try ExternalTool.require(tools(name))
        let root = try await root()
        let status = try JSONDecoder().decode(
            [String: String].self, from: Data(contentsOf: root.appendingPathComponent("status.json")))
        guard let state = status[name] else { throw FixtureError("gallery \(name) was not built (status.json has no entry)") }
        guard state == "ok" else { throw FixtureError("gallery \(name): \(state)") }
        let truth = try JSONDecoder().decode(
            GalleryTruth.self, from: Data(contentsOf: root.appendingPathComponent("truth/\(name).json")))
        return (root.appendingPathComponent("sites/\(name)"), truth)
    }

    private static func buildOnce() async -> Result<URL, FixtureError> {
        do {
            var hasher = SHA256()
            for file in try FileManager.default.contentsOfDirectory(atPath: scripts.path).sorted() where file.hasSuffix(".py") {
                hasher.update(data: Data(file.utf8))
                hasher.update(data: try Data(contentsOf: scripts.appendingPathComponent(file)))
            }
            // Which tools were there is part of the key: installing one builds the galleries again.
            let tools = everyTool.map { "\($0.name)=\($0.path ?? "-")" }.joined(separator: ",")
            hasher.update(data: Data(tools.utf8))
            let digest = hasher.finalize().prefix(6).map { String(format: "%02x", $0) }.joined()
            let root = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-mirror-galleries-\(digest)")
            if FileManager.default.fileExists(atPath: root.appendingPathComponent("status.json").path) { return .success(root) }
            let partial = root.deletingLastPathComponent().appendingPathComponent(
                "\(root.lastPathComponent).partial-\(UUID().uuidString)")
            let started = ContinuousClock.now
            let result = try await runPython([scripts.appendingPathComponent("build_galleries.py").path, partial.path])
            guard result.status == 0 else {
                throw FixtureError("build_galleries.py exited \(result.status): \(result.stderr.suffix(600))")
            }
            do {
                try FileManager.default.moveItem(at: partial, to: root)
            } catch {
                // Another process built it first: use theirs.
                try? FileManager.default.removeItem(at: partial)
                guard FileManager.default.fileExists(atPath: root.appendingPathComponent("status.json").path) else { throw error }
            }
            print("gallery fixtures built in \(ContinuousClock.now - started) into \(root.path)")
            return .success(root)
        } catch let error as FixtureError {
            return .failure(error)
        } catch {
            return .failure(FixtureError("building the gallery fixtures failed: \(error)"))
        }
    }

    private static func runPython(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let (exited, continuation) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { process in
            continuation.yield(process.terminationStatus)
            continuation.finish()
        }
        try process.run()
        let stderr = await Binary.readToEnd(errors.fileHandleForReading)
        var iterator = exited.makeAsyncIterator()
        let status = await iterator.next() ?? -1
        return (status, String(decoding: stderr, as: UTF8.self))
    }
}

/// Why a fixture gallery is not available, said in one line.
struct FixtureError: Error, CustomStringConvertible, Sendable {
    let description: String
    init(_ description: String) { self.description = description }
}
