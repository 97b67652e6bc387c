import Foundation
import Testing

@testable import MirrorPixels

@Suite struct CalibrationTests {
    @Test func calibrate() throws {
        guard let dir = ProcessInfo.processInfo.environment["CM_PIXEL_DIR"] else { return }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        var copies: [String: WorkingCopy] = [:]
        for file in files { copies[file] = try WorkingCopy.decode(path: dir + "/" + file) }
        func photo(_ name: String) -> String { String(name.prefix { $0 != "-" && $0 != "." }) }
        var trueMax = (0.0, 0.0), falseMin = (1.0, 1.0)
        var lines: [String] = []
        for a in files {
            for b in files where a < b {
                let c = PixelMatcher.compare(copies[a]!, copies[b]!)
                let same = photo(a) == photo(b)
                if same { trueMax = (max(trueMax.0, c.hashDistance), max(trueMax.1, c.colourDistance)) }
                else { falseMin = (min(falseMin.0, c.hashDistance), min(falseMin.1, c.colourDistance)) }
                if same != c.isMatch || same { lines.append("\(same ? "T" : "F") \(c.isMatch ? "match" : "diff ") h=\(String(format: "%.3f", c.hashDistance)) c=\(String(format: "%.4f", c.colourDistance)) crop=\(c.isCrop) \(a) \(b)") }
            }
        }
        print(lines.joined(separator: "\n"))
        print("true max \(trueMax) false min \(falseMin)")
    }
}
