// The embedded-metadata reader alone: every image file given read `--reps` times as a stored
// download is (its first 4 KB, then bounded reads), timed in-process. A cold sync reads each
// photo once; this prints the cost per photo that adds to it (Benchmarks/README.md).
//
//     metadata-throughput [--reps N] FILE...
//
// Prints the photos read, how many had a date taken, and the microseconds per read, so a
// run that found nothing is visible.
import Foundation
import MirrorEmbedded

var arguments = Array(CommandLine.arguments.dropFirst())
var reps = 200
if arguments.first == "--reps", arguments.count >= 2 {
    guard let value = Int(arguments[1]), value > 0 else {
        FileHandle.standardError.write(Data("metadata-throughput: --reps needs a positive number\n".utf8))
        exit(2)
    }
    reps = value
    arguments.removeFirst(2)
}
guard !arguments.isEmpty else {
    FileHandle.standardError.write(Data("usage: metadata-throughput [--reps N] FILE...\n".utf8))
    exit(2)
}
var dated = 0
var unreadable = 0
let clock = ContinuousClock()
let elapsed = clock.measure {
    for _ in 0..<reps {
        for path in arguments {
            guard let metadata = EmbeddedMetadataReader.read(fileAtPath: path) else {
                unreadable += 1
                continue
            }
            if metadata.taken != nil { dated += 1 }
        }
    }
}
let reads = reps * arguments.count
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
print(
    "\(arguments.count) files × \(reps): \(dated / reps) dated, \(unreadable / reps) unreadable, "
        + String(format: "%.2f µs per read", seconds * 1e6 / Double(reads)))
