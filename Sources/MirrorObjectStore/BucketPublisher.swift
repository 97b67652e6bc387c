import Crypto
import Foundation
import MirrorCore

/// Copies a published mirror to a bucket: what changed since the bucket was last written, in
/// the order that keeps the served site whole, with no LIST.
///
/// The order: new and replaced images (content-addressed names: no object a reader may be
/// fetching changes under it), then every other changed file (pages, feed, search files,
/// assets), then `manifest.json`, then the deletions. Between phases the state is saved
/// (`BucketState`), and when an upload fails the phase's other uploads finish, the state keeps
/// what went up, and the error names the object: `manifest.json` is not sent and nothing is
/// deleted, so the bucket serves the last complete mirror and the next run sends the rest.
package struct BucketPublisher: Sendable {
    /// How publishing is done.
    package struct Configuration: Sendable {
        /// Uploads in flight at once. Default 16.
        package var concurrency = 16
        /// Files larger than this go up in parts. Default 64 MiB.
        package var multipartThreshold: Int64 = 64 << 20
        /// The size of a part. Default 16 MiB (S3 asks at least 5 MiB but for the last).
        package var partSize = 16 << 20

        package init() {}
    }

    /// What a publish did.
    package struct Summary: Sendable, Equatable {
        /// Objects sent.
        package var uploaded = 0
        /// Bytes sent.
        package var uploadedBytes: Int64 = 0
        /// Objects deleted.
        package var deleted = 0
    }

    /// One file of the mirror as it goes to the bucket.
    struct Upload: Sendable {
        var path: String
        var object: BucketState.Object
        var contentType: String
        var cacheControl: String
        /// False for an image the manifest names that is not on this disk (a worker that keeps
        /// no disk confirmed it without downloading it): it can only stay as the bucket has it.
        var onDisk = true
        /// When the file on disk last changed, for a file that is not an image (`BucketState.modified`).
        var modified: Int64? = nil
        /// For `manifest.json`: the site it names (`ObjectMetadata.siteMark`).
        var site: String? = nil
    }

    package let client: S3Client
    /// The mirror's root directory.
    package let root: URL
    /// Where the state is kept (`.catalog-mirror/bucket.json`).
    package let stateFile: URL
    package var configuration = Configuration()

    package init(client: S3Client, root: URL, stateFile: URL) {
        self.client = client
        self.root = root
        self.stateFile = stateFile
    }

    /// What the state of this target is called in `bucket.json`: the bucket, prefix and endpoint.
    package var stateTarget: String {
        "\(client.target) at \(client.endpoint.scheme)://\(client.endpoint.authority)\(client.endpoint.basePath)"
    }

    /// Publishes the mirror at `root`, whose manifest is `manifest`, from what the bucket holds
    /// as `starting` says (nil: `startingState()`). `site` names the site on this disk
    /// (`MirrorPublisher.PreparedSite.mark`; nil when it cannot be named), or the one the bucket
    /// already serves when this run made none: `manifest.json` carries it (`ObjectMetadata.siteMark`)
    /// once every file of that site is in the bucket, and loses it before any of them is replaced.
    /// - Throws: the first `ObjectStoreError` of an upload or deletion (after the state is saved).
    package func publish(
        _ manifest: Manifest, site: String? = nil, starting: BucketState? = nil
    ) async throws(ObjectStoreError) -> Summary {
        var state: BucketState
        if let starting { state = starting } else { state = try await startingState() }
        var learned = false
        let files = try mirrorFiles(manifest, known: state)
        var summary = Summary()
        var changed = files.filter { state.objects[$0.path] != $0.object }
        if state.seeded {
            // Started from the bucket's manifest, which names images only: a page (or the
            // manifest) the bucket may already hold as it is here is asked about first, with a
            // HEAD, rather than sent again.
            changed = await unlessHeld(changed, state: &state)
            learned = true
            // A site the bucket serves as this run would have made it was not made here (a
            // worker that keeps no disk): its files stay unknown to this state, and are asked
            // about, not sent, should a later run here make them.
            state.seeded = site != nil && site == state.site
        }
        if let absent = changed.first(where: { !$0.onDisk }) {
            throw ObjectStoreError(
                .failed,
                "\(absent.path) is named by the manifest but is neither on this disk nor in the bucket with its bytes")
        }
        let images = changed.filter { $0.cacheControl == ObjectMetadata.immutable }
        let others = changed.filter { $0.cacheControl != ObjectMetadata.immutable && $0.path != "manifest.json" }
        var manifestFile = changed.filter { $0.path == "manifest.json" }
        if manifestFile.isEmpty, let site, state.site != site, let upload = files.first(where: { $0.path == "manifest.json" }) {
            // Its content is as the bucket has it, but not the site it names.
            manifestFile = [upload]
        }
        let present = Set(files.map(\.path))
        let gone = state.objects.keys.filter { !present.contains($0) }.sorted()
        if !images.isEmpty { try await run(images, state: &state, summary: &summary) }
        if !others.isEmpty {
            // The site the manifest names is about to change: it names none until the new one
            // is all there, so a worker never takes a half-sent site for a whole one.
            if state.site != nil { try await unmarkSite(&state) }
            try await run(others, state: &state, summary: &summary)
        }
        if !manifestFile.isEmpty {
            for index in manifestFile.indices { manifestFile[index].site = site }
            try await run(manifestFile, state: &state, summary: &summary)
            state.site = site
            learned = true
        }
        if !gone.isEmpty {
            try await delete(gone, state: &state, summary: &summary)
        }
        // The files whose bytes are now the bucket's, with their times, for the next quick check.
        var modified: [String: Int64] = [:]
        for file in files where state.objects[file.path] == file.object {
            if let time = file.modified { modified[file.path] = time }
        }
        if learned || modified != state.modified {
            state.modified = modified
            try save(state)
        }
        return summary
    }

    /// Takes the site mark off `manifest.json`'s object (its bytes, type and hash stay), and
    /// saves the state saying so.
    private func unmarkSite(_ state: inout BucketState) async throws(ObjectStoreError) {
        var headers = [
            ("Content-Type", ObjectMetadata.contentType(ofPath: "manifest.json")), ("Cache-Control", ObjectMetadata.shortLived),
        ]
        if let sha256 = state.objects["manifest.json"]?.sha256 { headers.append(("x-amz-meta-sha256", sha256)) }
        try await client.replaceMetadata(client.target.key("manifest.json"), headers: headers)
        state.site = nil
        try save(state)
    }

    /// The saved state for this target; else what the bucket's `manifest.json` says it holds
    /// (`BucketState.seeded`); else nothing.
    func startingState() async throws(ObjectStoreError) -> BucketState {
        if let saved = BucketState.read(stateFile, target: stateTarget) { return saved }
        guard let (data, head) = try await client.getObject(client.target.key("manifest.json")),
            let manifest = try? JSONCoding.decode(Manifest.self, from: data)
        else { return BucketState(target: stateTarget) }
        return BucketState.seeded(from: manifest, target: stateTarget, head: head)
    }

    /// The uploads of `uploads` the bucket does not already hold as they are: each file that
    /// is not an image and that `state` does not know is asked about with a HEAD (its size and
    /// `x-amz-meta-sha256`, which every upload carries), `configuration.concurrency` at a time,
    /// and one held is added to `state` instead of being sent. A HEAD that fails leaves its
    /// file to be sent.
    func unlessHeld(_ uploads: [Upload], state: inout BucketState) async -> [Upload] {
        let asked = uploads.filter { $0.cacheControl != ObjectMetadata.immutable && state.objects[$0.path] == nil }
        guard !asked.isEmpty else { return uploads }
        var held = Set<String>()
        await withTaskGroup(of: (Upload, Bool).self) { group in
            var pending = asked.makeIterator()
            for _ in 0..<max(1, configuration.concurrency) {
                guard let upload = pending.next() else { break }
                group.addTask { (upload, await self.bucketHolds(upload)) }
            }
            while let (upload, holds) = await group.next() {
                if holds {
                    held.insert(upload.path)
                    state.objects[upload.path] = upload.object
                }
                if let next = pending.next() { group.addTask { (next, await self.bucketHolds(next)) } }
            }
        }
        return uploads.filter { !held.contains($0.path) }
    }

    /// True when the bucket's object for `upload` has its size and SHA-256.
    private func bucketHolds(_ upload: Upload) async -> Bool {
        guard let head = try? await client.head(client.target.key(upload.path)) else { return false }
        return head.bytes == upload.object.bytes && head.sha256 == upload.object.sha256
    }

    /// Every file of the mirror outside `.catalog-mirror/`: images with the manifest's hash,
    /// size and type, the rest hashed here (unless `known` hashed it at its size and time);
    /// and each image the manifest names that is not on this disk (`Upload.onDisk`), as the
    /// manifest describes it.
    func mirrorFiles(_ manifest: Manifest, known: BucketState) throws(ObjectStoreError) -> [Upload] {
        var images: [String: Manifest.Item] = [:]
        for item in manifest.items { images[item.path] = item }
        var uploads: [Upload] = []
        let base = root.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: base) else {
            throw ObjectStoreError(.failed, "cannot read the mirror \(base) to publish it")
        }
        while let next = walker.nextObject() as? String {
            if next == ".catalog-mirror" || next.hasPrefix(".catalog-mirror/") {
                walker.skipDescendants()
                continue
            }
            let full = base + "/" + next
            guard let status = FileSystem.status(atPath: full),
                walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular
            else { continue }
            if next == "manifest.json" {
                // Its times (`generatedAt`, each item's `lastChecked`) move on every run: a run
                // that changed nothing else does not send it again, so a no-op sends no PUT.
                uploads.append(
                    Upload(
                        path: next, object: .init(sha256: Self.contentHash(of: manifest), bytes: status.size),
                        contentType: ObjectMetadata.contentType(ofPath: next), cacheControl: ObjectMetadata.shortLived))
            } else if let item = images.removeValue(forKey: next) {
                uploads.append(
                    Upload(
                        path: next, object: .init(sha256: item.sha256, bytes: item.bytes), contentType: item.contentType,
                        cacheControl: ObjectMetadata.immutable))
            } else {
                let hash: String
                if let object = known.objects[next], object.bytes == status.size, known.modified[next] == status.modified {
                    hash = object.sha256
                } else if let computed = FileSystem.sha256(atPath: full) {
                    hash = computed
                } else {
                    throw ObjectStoreError(.failed, "cannot read \(full) to publish it")
                }
                uploads.append(
                    Upload(
                        path: next, object: .init(sha256: hash, bytes: status.size),
                        contentType: ObjectMetadata.contentType(ofPath: next), cacheControl: ObjectMetadata.shortLived,
                        modified: status.modified))
            }
        }
        for (path, item) in images {
            uploads.append(
                Upload(
                    path: path, object: .init(sha256: item.sha256, bytes: item.bytes), contentType: item.contentType,
                    cacheControl: ObjectMetadata.immutable, onDisk: false))
        }
        return uploads.sorted { $0.path < $1.path }
    }

    /// The SHA-256 of `manifest` with its times set to 1970: what `manifest.json` says but when.
    static func contentHash(of manifest: Manifest) -> String {
        var copy = manifest
        copy.generatedAt = Date(timeIntervalSince1970: 0)
        copy.items = copy.items.map { item in
            var item = item
            item.lastChecked = Date(timeIntervalSince1970: 0)
            return item
        }
        var hasher = SHA256()
        do {
            try copy.write { hasher.update(bufferPointer: $0) }
        } catch {
            return "unhashable-\(UUID().uuidString)"
        }
        return hasher.finalize().hexString
    }

    /// Uploads `phase`, `configuration.concurrency` at a time; saves the state when done or
    /// when one fails (then throws its error, after the others in flight have finished).
    private func run(_ phase: [Upload], state: inout BucketState, summary: inout Summary) async throws(ObjectStoreError) {
        var failure: ObjectStoreError?
        await withTaskGroup(of: Result<Upload, ObjectStoreError>.self) { group in
            var pending = phase.makeIterator()
            var inFlight = 0
            while inFlight < max(1, configuration.concurrency), let upload = pending.next() {
                group.addTask { await self.upload(upload) }
                inFlight += 1
            }
            while let result = await group.next() {
                inFlight -= 1
                switch result {
                case .success(let upload):
                    state.objects[upload.path] = upload.object
                    summary.uploaded += 1
                    summary.uploadedBytes += upload.object.bytes
                case .failure(let error):
                    if failure == nil { failure = error }
                }
                if failure == nil, let upload = pending.next() {
                    group.addTask { await self.upload(upload) }
                    inFlight += 1
                }
            }
        }
        try save(state)
        if let failure { throw failure }
    }

    private func upload(_ upload: Upload) async -> Result<Upload, ObjectStoreError> {
        let file = root.appendingPathComponent(upload.path)
        let key = client.target.key(upload.path)
        var headers = [("Content-Type", upload.contentType), ("Cache-Control", upload.cacheControl)]
        if let site = upload.site { headers.append((ObjectMetadata.siteMark, site)) }
        do throws(ObjectStoreError) {
            if upload.object.bytes > configuration.multipartThreshold {
                try await client.putMultipart(
                    key, file: file, bytes: upload.object.bytes, partSize: max(5 << 20, configuration.partSize),
                    headers: headers, sha256: upload.object.sha256)
            } else {
                let body: Data
                do {
                    body = try Data(contentsOf: file)
                } catch {
                    throw ObjectStoreError(
                        .failed, "cannot read \(file.path) to upload it as \(key): \(error.localizedDescription)")
                }
                guard body.count == upload.object.bytes else {
                    throw ObjectStoreError(
                        .failed, "\(file.path) is \(body.count) bytes, the manifest says \(upload.object.bytes); run sync again")
                }
                try await client.put(key, body: body, headers: headers, sha256: upload.object.sha256)
            }
            return .success(upload)
        } catch {
            return .failure(error)
        }
    }

    private func delete(_ paths: [String], state: inout BucketState, summary: inout Summary) async throws(ObjectStoreError) {
        var failure: ObjectStoreError?
        await withTaskGroup(of: (String, ObjectStoreError?).self) { group in
            var pending = paths.makeIterator()
            for _ in 0..<max(1, configuration.concurrency) {
                guard let path = pending.next() else { break }
                group.addTask { await self.deleteOne(path) }
            }
            while let (path, error) = await group.next() {
                if let error {
                    if failure == nil { failure = error }
                } else {
                    state.objects[path] = nil
                    summary.deleted += 1
                }
                if let next = pending.next() { group.addTask { await self.deleteOne(next) } }
            }
        }
        try save(state)
        if let failure { throw failure }
    }

    private func deleteOne(_ path: String) async -> (String, ObjectStoreError?) {
        do throws(ObjectStoreError) {
            try await client.delete(client.target.key(path))
            return (path, nil)
        } catch {
            return (path, error)
        }
    }

    private func save(_ state: BucketState) throws(ObjectStoreError) {
        do {
            try state.write(to: stateFile)
        } catch {
            throw ObjectStoreError(.failed, "cannot save \(stateFile.path): \(error.localizedDescription)")
        }
    }
}
