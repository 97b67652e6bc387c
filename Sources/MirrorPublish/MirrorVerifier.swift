import Crypto
import Foundation
import MirrorCore
import MirrorStore

/// Re-hashes every file `manifest.json` lists (`catalog-mirror verify`).
public enum MirrorVerifier {
    /// The result: how many items were checked and what did not match.
    public struct Report: Sendable, Equatable {
        /// Items of the manifest checked.
        public var checked: Int
        /// One line per problem: the path and what is wrong with it.
        public var problems: [String]
        /// True when every file matched its manifest entry.
        public var isClean: Bool { problems.isEmpty }
    }

    /// The manifest could not be read (exit 2).
    public struct Unreadable: Error, Sendable, CustomStringConvertible {
        /// One line naming the manifest, what is wrong, and what to do.
        public let description: String
    }

    /// Checks every item of the mirror's manifest against its file: present, same size, same SHA-256.
    /// - Parameter layout: The mirror to check.
    /// - Returns: How many items were checked and one line per mismatch.
    /// - Throws: ``Unreadable`` when `manifest.json` is missing or cannot be decoded.
    public static func verify(_ layout: MirrorLayout) throws(Unreadable) -> Report {
        let manifest: Manifest
        do {
            manifest = try Manifest.read(from: layout.manifest)
        } catch let error as StoreError {
            throw Unreadable(description: "\(layout.manifest.path): \(error.message); run sync to rewrite it")
        } catch CocoaError.fileReadNoSuchFile {
            throw Unreadable(
                description:
                    "\(layout.manifest.path) does not exist; is \(layout.root.path) a mirror? (name the mirror with --out DIR)")
        } catch {
            throw Unreadable(
                description:
                    "\(layout.manifest.path) is not a readable manifest: \(JSONCoding.describe(error)) (run sync to rewrite it)")
        }
        var problems: [String] = []
        for item in manifest.items {
            guard let url = layout.file(atRelativePath: item.path) else {
                problems.append("\(item.path): path leaves the mirror directory")
                continue
            }
            guard let handle = FileHandle(forReadingAtPath: url.path) else {
                problems.append("\(item.path): missing")
                continue
            }
            defer { try? handle.close() }
            var hasher = SHA256()
            var count: Int64 = 0
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                count += Int64(chunk.count)
            }
            if count != item.bytes {
                problems.append("\(item.path): \(count) bytes, manifest says \(item.bytes)")
            } else if hasher.finalize().hexString != item.sha256.lowercased() {
                problems.append("\(item.path): SHA-256 differs from the manifest")
            }
        }
        return Report(checked: manifest.items.count, problems: problems)
    }
}
