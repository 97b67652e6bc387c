import Foundation

/// Writes a file so readers see either the old bytes or the new ones, never a mix: the bytes go
/// to a temporary file in the state directory (same file system), are flushed, then renamed
/// over the destination. With `flush: false` the caller flushes later, for many files at once
/// (`FileSystem.flushFileSystem`): a kill cannot tear the file either way, only a power loss
/// before that flush can.
package enum AtomicFile {
    package static func write(
        _ bytes: some Collection<UInt8>, to destination: URL, temporaryDirectory: URL, flush: Bool = true
    ) throws(PublishError) {
        try write(to: destination, temporaryDirectory: temporaryDirectory, flush: flush) { writer in
            // Data and arrays are written from their own storage, not copied first.
            let written: Void? = try bytes.withContiguousStorageIfAvailable { try writer.write(UnsafeRawBufferPointer($0)) }
            if written == nil { try Array(bytes).withUnsafeBytes { try writer.write($0) } }
        }
    }

    /// Writes what `produce` hands the writer, atomically, without holding the whole file.
    package static func write(
        to destination: URL, temporaryDirectory: URL, flush: Bool = true, _ produce: (TemporaryFileWriter) throws -> Void
    ) throws(PublishError) {
        let prepared = try prepare(for: destination, temporaryDirectory: temporaryDirectory, flush: flush, produce)
        try prepared.commit()
    }

    /// A file written (and flushed, if asked) under a temporary name, waiting to be renamed over
    /// its destination: what lets a publish write `manifest.json` beside its pages, and put it
    /// in place only after them.
    package struct Prepared: Sendable {
        package let temporaryPath: String
        package let destination: URL

        /// Renames the file over its destination.
        package func commit() throws(PublishError) {
            if rename(temporaryPath, destination.path) != 0 {
                let reason = String(cString: strerror(errno))
                discard()
                throw PublishError(.fileSystem, "cannot replace \(destination.path): \(reason)\(PublishError.diskAdvice)")
            }
        }

        /// Removes the file instead.
        package func discard() { unlink(temporaryPath) }
    }

    /// The first half of `write`: the bytes written and flushed under a temporary name.
    package static func prepare(
        for destination: URL, temporaryDirectory: URL, flush: Bool = true, _ produce: (TemporaryFileWriter) throws -> Void
    ) throws(PublishError) -> Prepared {
        let writer: TemporaryFileWriter
        do {
            writer = try TemporaryFileWriter(in: temporaryDirectory)
        } catch {
            throw PublishError(.fileSystem, "cannot write into \(temporaryDirectory.path): \(error)\(PublishError.diskAdvice)")
        }
        do {
            try produce(writer)
            try writer.finish(flush: flush)
        } catch {
            writer.discard()
            throw PublishError(.fileSystem, "cannot write \(destination.path): \(error)\(PublishError.diskAdvice)")
        }
        return Prepared(temporaryPath: writer.path, destination: destination)
    }

    /// Replaces a file outside the mirror (the report, the metrics file) the same way, through a
    /// temporary file in its own folder: a reader (node_exporter, a monitoring script) sees the
    /// old file or the new one. Unlike `write`, the error names only the file and the cause.
    package static func replace(_ destination: URL, _ produce: (TemporaryFileWriter) throws -> Void) throws(PublishError) {
        let folder = destination.deletingLastPathComponent()
        let writer: TemporaryFileWriter
        do {
            writer = try TemporaryFileWriter(in: folder)
        } catch {
            throw PublishError(.fileSystem, "cannot write \(destination.path): cannot create a file in \(folder.path): \(error)")
        }
        do {
            try produce(writer)
            try writer.finish(flush: true)
        } catch {
            writer.discard()
            throw PublishError(.fileSystem, "cannot write \(destination.path): \(error)")
        }
        if rename(writer.path, destination.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(writer.path)
            throw PublishError(.fileSystem, "cannot replace \(destination.path): \(reason)")
        }
    }

    /// `prepare` for `bytes`, unless the destination already holds exactly these bytes: then
    /// nothing is written and nil is returned (the file keeps its mtime: nothing for caches or
    /// rsync to fetch again).
    package static func prepareIfChanged(
        _ bytes: [UInt8], for destination: URL, temporaryDirectory: URL, flush: Bool = true
    ) throws(PublishError) -> Prepared? {
        if FileManager.default.contents(atPath: destination.path).map({ Array($0) == bytes }) == true { return nil }
        return try prepare(for: destination, temporaryDirectory: temporaryDirectory, flush: flush) { writer in
            try bytes.withUnsafeBytes { try writer.write($0) }
        }
    }
}
