// swift-tools-version:6.2
// Swift 6 language mode with complete strict concurrency (the default for tools 6.x).
import Foundation
import PackageDescription

let package = Package(
    name: "catalog-mirror",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "catalog-mirror", targets: ["catalog-mirror"]),
        .library(name: "CatalogMirror", targets: ["CatalogMirror"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),  // LogHandler.log(event:)
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        // `swift package generate-documentation --target CatalogMirror` (.ci/run); no code depends on it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // libxml2 through pkg-config; only MirrorMarkup imports it.
        .systemLibrary(
            name: "CLibXML",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        // libidn2 through pkg-config, for non-ASCII host names; only MirrorCore/Keys imports it.
        .systemLibrary(
            name: "CIDN2",
            pkgConfig: "libidn2",
            providers: [.apt(["libidn2-dev"]), .brew(["libidn2"])]
        ),
        // Brotli's decoder (Content-Encoding: br, which async-http-client does not decode);
        // only MirrorFetch/BrotliDecoder.swift imports it.
        .systemLibrary(
            name: "CBrotli",
            pkgConfig: "libbrotlidec",
            providers: [.apt(["libbrotli-dev"]), .brew(["brotli"])]
        ),
        // libexif, for a photo's EXIF block (date taken, camera, exposure, GPS); only
        // MirrorEmbedded/EXIFBlock.swift imports it.
        .systemLibrary(
            name: "CLibEXIF",
            pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"]), .brew(["libexif"])]
        ),
        // libiptcdata, for a photo's IPTC-IIM records (title, caption, keywords...) in its
        // Photoshop block; only MirrorEmbedded/IPTCBlock.swift imports it.
        .systemLibrary(
            name: "CIPTCData",
            pkgConfig: "libiptcdata",
            providers: [.apt(["libiptcdata0-dev"]), .brew(["libiptcdata"])]
        ),
        // The stages, bottom up: each module imports only those listed below it, so the
        // compiler keeps the data flowing one way (ARCHITECTURE.md draws the graph). Between
        // modules, API is `package`; `public` is what a user of the library calls.
        //
        // The values every stage shares: keys (the URL parser, `CanonicalURL`), requests and
        // validators, downloaded files and image formats, stored images, the manifest and its
        // items, rejection reasons and verdicts, timestamps, errors, the progress board, and
        // small support (files, JSON). No event loop, no thread pool.
        .target(
            name: "MirrorCore",
            dependencies: [
                "CIDN2",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Work that blocks its thread (flushes, decoding, writing pages), run on NIO's thread
        // pool and awaited: `BlockingWork`.
        .target(
            name: "MirrorBlocking",
            dependencies: ["MirrorCore", .product(name: "NIOPosix", package: "swift-nio")]
        ),
        // Reading documents: HTML pages, feeds, JSON listings, scripts, srcset, XMP packets.
        .target(name: "MirrorMarkup", dependencies: ["MirrorCore", "CLibXML"]),
        // What an image file says about itself: EXIF, IPTC, XMP.
        .target(name: "MirrorEmbedded", dependencies: ["MirrorCore", "MirrorMarkup", "CLibEXIF", "CIPTCData"]),
        // The mirror on disk: the index (SQLite through GRDB), file names, staging, publishing.
        .target(
            name: "MirrorStore",
            dependencies: [
                "MirrorCore", "MirrorBlocking", "MirrorEmbedded",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Image decoding for the pixel matcher: libjpeg-turbo, libpng, giflib and libwebp, called
        // from C (their error handlers longjmp; CPixels.h says why). Only MirrorPixels imports it.
        .target(
            name: "CPixels",
            linkerSettings: [
                .linkedLibrary("jpeg"), .linkedLibrary("png16"), .linkedLibrary("gif"), .linkedLibrary("webp"),
            ]
        ),
        // A photo is its pixels: working copies, fingerprints, and the matcher that confirms
        // the renditions the structure proposes.
        // Optimized in every configuration: the matcher's search reads a few hundred thousand
        // area sums a crop, a quarter of a second a pair unoptimized, which a debug build's
        // tests (and `swift run`) would pay on every gallery with renditions.
        .target(
            name: "MirrorPixels", dependencies: ["MirrorCore", "CPixels"],
            swiftSettings: [.unsafeFlags(["-O"])]
        ),
        // The validator chain and robots.txt.
        .target(name: "MirrorValidate", dependencies: ["MirrorCore"]),
        // The transport: HTTP sessions, the pipelined client, TLS, proxies, cookies, and the
        // decoding of bodies. It knows no store: it depends on Core alone.
        .target(
            name: "MirrorFetch",
            dependencies: [
                "MirrorCore", "CBrotli",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The seed's cached pipeline: the image sources over the transport, the `ImageLoader`
        // actor that coalesces loads of a key, in front of the `@ImageDatabase` store.
        .target(
            name: "MirrorPipeline",
            dependencies: [
                "MirrorCore", "MirrorEmbedded", "MirrorStore", "MirrorFetch",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The crawl: pages, feeds, listings and sitemaps into image keys.
        .target(
            name: "MirrorCrawl",
            dependencies: [
                "MirrorCore", "MirrorMarkup", "MirrorValidate", "MirrorFetch",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]
        ),
        // The run's domain: the catalog of keys, photos and albums, and the publish plan.
        .target(name: "MirrorCatalog", dependencies: ["MirrorCore", "MirrorMarkup", "MirrorStore", "MirrorCrawl"]),
        // The generated site: pages, feed, search index, from the manifest.
        .target(
            name: "MirrorPublish",
            dependencies: [
                "MirrorCore", "MirrorBlocking", "MirrorMarkup", "MirrorStore", "MirrorCatalog",
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            plugins: ["EmbedFolder"]
        ),
        // Publishing to S3-compatible object storage (`--publish`): the SigV4 signer, the S3
        // calls over async-http-client (no Swift S3 SDK is available), the bucket's state.
        .target(
            name: "MirrorObjectStore",
            dependencies: [
                "MirrorCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // What a run tells its operator: the report, its changes, its metrics.
        .target(name: "MirrorOperate", dependencies: ["MirrorCore", "MirrorStore"]),
        // The library a user calls: settings, configuration, and the engine that runs the
        // stages (crawl → validate → fetch → store → publish). Never imports ArgumentParser.
        .target(
            name: "CatalogMirror",
            dependencies: [
                "MirrorCore", "MirrorBlocking", "MirrorMarkup", "MirrorEmbedded", "MirrorStore", "MirrorValidate",
                "MirrorFetch", "MirrorPipeline", "MirrorCrawl", "MirrorCatalog", "MirrorPixels", "MirrorPublish",
                "MirrorOperate", "MirrorObjectStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The bundled sample gallery (a real Hummingbird server), used by `demo` and by tests.
        // Its images (Images/) are compiled in by EmbedFolder, not SwiftPM resources: the
        // release binary is static and must serve them without the source tree.
        .target(
            name: "SampleGallery",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird")
            ],
            exclude: ["Images"],
            plugins: ["EmbedFolder"]
        ),
        // Writes the git revision into the executable, for `--version`.
        .plugin(name: "GitRevision", capability: .buildTool()),
        // Compiles a folder into a target (the installed binary has no source tree):
        // site-template/ into MirrorPublish, the sample gallery's images into SampleGallery.
        .plugin(name: "EmbedFolder", capability: .buildTool()),
        // Thin executable: parses flags, runs the engine, maps the report to an exit status.
        .executableTarget(
            name: "catalog-mirror",
            dependencies: [
                "CatalogMirror",
                "SampleGallery",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            plugins: ["GitRevision"]
        ),
        // The benchmark's parser row (Benchmarks/bench.py): extraction alone, over one file.
        .executableTarget(
            name: "extract-throughput",
            dependencies: ["CatalogMirror"],
            path: "Benchmarks/ExtractThroughput"
        ),
        // The embedded-metadata reader's cost per photo (Benchmarks/README.md).
        .executableTarget(
            name: "metadata-throughput",
            dependencies: ["MirrorEmbedded"],
            path: "Benchmarks/MetadataThroughput"
        ),
        // Reading manifest.json: Manifest.read against JSONDecoder over the file (Benchmarks/README.md).
        .executableTarget(
            name: "manifest-read",
            dependencies: ["MirrorCore"],
            path: "Benchmarks/ManifestRead"
        ),
        // The render benchmark: the site's pages rendered from a manifest alone (Benchmarks/README.md).
        .executableTarget(
            name: "render-pages",
            dependencies: ["CatalogMirror", .product(name: "Crypto", package: "swift-crypto")],
            path: "Benchmarks/RenderPages"
        ),
        // What several test targets share, so that none keeps its own copy: temporary
        // directories, SHA-256 in hex, a Hummingbird server on an ephemeral port, a small site
        // of fixed documents. A library only test targets use; it imports no stage module.
        .target(
            name: "MirrorTestSupport",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/MirrorTestSupport"
        ),
        // One test target a module, each depending on its module and those below it only (as
        // swift-nio's NIOCoreTests, NIOPosixTests...); SampleGallery lends its images as fixtures.
        //
        // The library's own tests: the engine's phases and state machine, errors, settings,
        // the crawler behind the engine's robots.txt gate, the sample gallery's images.
        .testTarget(
            name: "CatalogMirrorTests",
            dependencies: [
                "CatalogMirror", "SampleGallery", "MirrorTestSupport",
                "MirrorCore", "MirrorMarkup", "MirrorStore", "MirrorValidate", "MirrorFetch", "MirrorPipeline",
                "MirrorCrawl", "MirrorCatalog", "MirrorPublish", "MirrorOperate",
                // ErrorMessageTests: NIO's own errors, as the transport meets them.
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The shared values' own tests: keys, the manifest, the JSON writer, text search, byte
        // order, what a file's first bytes say (on the sample gallery's images).
        .testTarget(name: "MirrorCoreTests", dependencies: ["MirrorCore", "SampleGallery"]),
        // BlockingWork on NIO's thread pool.
        .testTarget(name: "MirrorBlockingTests", dependencies: ["MirrorBlocking", "MirrorCore", "MirrorTestSupport"]),
        // The document readers' own tests: pages, feeds (the corpus, Fixtures/feeds), JSON,
        // scripts, listings, photo sets.
        .testTarget(
            name: "MirrorMarkupTests",
            dependencies: ["MirrorMarkup", "MirrorCore"],
            resources: [.copy("Fixtures")]
        ),
        // EXIF, IPTC and XMP on the photos of Fixtures/photos (read from the source tree), and
        // image dimensions.
        .testTarget(
            name: "MirrorEmbeddedTests",
            dependencies: ["MirrorEmbedded", "MirrorMarkup", "MirrorCore", "SampleGallery", "MirrorTestSupport"],
            exclude: ["Fixtures"]
        ),
        // The store's own tests: the index's records, file names, previous manifests, leftovers.
        .testTarget(
            name: "MirrorStoreTests",
            dependencies: [
                "MirrorStore", "MirrorEmbedded", "MirrorCore", "SampleGallery", "MirrorTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The validator chain's and robots.txt's own tests.
        .testTarget(name: "MirrorValidateTests", dependencies: ["MirrorValidate", "MirrorCore"]),
        // The transport's own tests: MirrorFetch and MirrorCore alone (no store, no SQLite); the
        // pipelined client against a raw NIO server that answers only pipelined requests.
        .testTarget(
            name: "MirrorFetchTests",
            dependencies: [
                "MirrorFetch", "MirrorCore",
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The seed's pipeline: the loader and the store's state under it.
        .testTarget(
            name: "MirrorPipelineTests",
            dependencies: [
                "MirrorPipeline", "MirrorStore", "MirrorFetch", "MirrorEmbedded", "MirrorMarkup", "MirrorCore",
                "SampleGallery", "MirrorTestSupport",
            ]
        ),
        // The crawl's own tests: the crawler on a small site on 127.0.0.1, the frontier, keys
        // from documents, files read as documents.
        .testTarget(
            name: "MirrorCrawlTests",
            dependencies: [
                "MirrorCrawl", "MirrorFetch", "MirrorValidate", "MirrorMarkup", "MirrorCore", "MirrorTestSupport",
            ]
        ),
        // The catalog's own tests: entries, photo groups, rendition families, the site's name.
        .testTarget(
            name: "MirrorCatalogTests",
            dependencies: ["MirrorCatalog", "MirrorCrawl", "MirrorStore", "MirrorMarkup", "MirrorCore"]
        ),
        // The pixel matcher on real photographs (Fixtures/, made by Fixtures/make.py).
        .testTarget(
            name: "MirrorPixelsTests",
            dependencies: ["MirrorPixels", "MirrorCore"],
            resources: [.copy("Fixtures")]
        ),
        // The site's own tests: pages, feed, plan, template (as swift-mustache renders it), the
        // names the site's script relies on (Fixtures/site-contract, read from the source tree).
        .testTarget(
            name: "MirrorPublishTests",
            dependencies: [
                "MirrorPublish", "MirrorCatalog", "MirrorStore", "MirrorMarkup", "MirrorCore", "MirrorTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Mustache", package: "swift-mustache"),
            ],
            exclude: ["Fixtures"]
        ),
        // The SigV4 signer against AWS's test suite and botocore, the S3 requests, the state.
        .testTarget(
            name: "MirrorObjectStoreTests",
            dependencies: ["MirrorObjectStore", "MirrorCore"]
        ),
        // The report, its changes and its metrics.
        .testTarget(
            name: "MirrorOperateTests",
            dependencies: ["MirrorOperate", "MirrorStore", "MirrorCore", "MirrorTestSupport"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "CatalogMirror",
                "SampleGallery",
                "MirrorTestSupport",
                "MirrorCore", "MirrorMarkup", "MirrorStore", "MirrorFetch", "MirrorPipeline", "MirrorPublish",
                "MirrorOperate", "MirrorObjectStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The gallery fixtures' generator scripts, run with python3 from the source tree, and
            // the help-text snapshots, read from the source tree by HelpSnapshotTests.
            exclude: ["Galleries/Scripts", "CommandLine/HelpSnapshots", "Publish/Scripts"]
        ),
    ]
)

// libFuzzer targets, built only on request (Fuzz/run: CATALOG_MIRROR_FUZZ=1, -sanitize=fuzzer).
if ProcessInfo.processInfo.environment["CATALOG_MIRROR_FUZZ"] != nil {
    for name in ["FuzzHTML", "FuzzFeeds", "FuzzKeys", "FuzzURL", "FuzzSrcset", "FuzzScripts", "FuzzMetadata"] {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["CatalogMirror"], path: "Fuzz/\(name)",
                swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}
