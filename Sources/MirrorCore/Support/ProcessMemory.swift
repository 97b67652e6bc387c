import Foundation

/// The process's own peak resident memory, for the run report (`peakMemoryBytes`): what an
/// operator sizes a container's or a unit's memory limit by.
///
/// Read from `VmHWM` in `/proc/self/status`: the high-water mark of this process's own
/// address space. `getrusage`'s `ru_maxrss` is not: a process started by `posix_spawn` (a
/// `vfork`, as Foundation's `Process` and Python's `subprocess` start one) carries its
/// parent's high-water mark into its own at `exec`, so a mirror run from a 300 MB test
/// runner or supervisor would report 300 MB.
public enum ProcessMemory {
    /// Bytes, or nil where `/proc` has no such line (not Linux, or `/proc` not mounted).
    public static func peakResidentBytes(statusFile: String = "/proc/self/status") -> Int? {
        guard let status = FileManager.default.contents(atPath: statusFile) else { return nil }
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("VmHWM:") {
            // "VmHWM:     60424 kB"
            let fields = line.dropFirst("VmHWM:".count).split { $0 == " " || $0 == "\t" }
            guard fields.count == 2, fields[1] == "kB", let kilobytes = Int(fields[0]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }
}
