// The benchmark's parser row: catalog-mirror's key extraction over one file, timed by
// Benchmarks/bench.py side by side with `xmllint --noout` (and `--stream`) on the same file.
//
//     extract-throughput feed|html|json|script FILE [BASE-URL]
//
// Prints the number of keys found, so a run that extracted nothing is visible.
import CatalogMirror
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3, let kind = FileExtraction.Kind(rawValue: arguments[1]) else {
    FileHandle.standardError.write(Data("usage: extract-throughput feed|html|json|script FILE [BASE-URL]\n".utf8))
    exit(2)
}
guard let base = CanonicalURL(arguments.count > 3 ? arguments[3] : "http://127.0.0.1/gallery/") else {
    FileHandle.standardError.write(Data("extract-throughput: not a usable base URL: \(arguments[3])\n".utf8))
    exit(2)
}
do {
    let keys = try FileExtraction.keys(inFileAt: arguments[2], kind: kind, base: base)
    print("\(keys.count) keys")
} catch {
    FileHandle.standardError.write(Data("extract-throughput: \(error)\n".utf8))
    exit(1)
}
