#if canImport(Glibc)
    import Glibc
#endif

/// Gives the pages malloc holds free back to the system, between the stages of a run.
///
/// A run's tasks move between threads, and glibc gives each thread's allocations an arena of
/// their own: what one stage frees in one arena (the previous manifest as it is read, the
/// catalog's table after the crawl, the catalog after the plan) is not reused by the next
/// stage's allocations in another, and stayed in the process's resident size. `malloc_trim`
/// returns every free page of every arena. It is looked up at run time: Glibc's module map
/// does not include `<malloc.h>`, and another C library simply has none.
package enum FreeMemory {
    package static func release() {
        #if canImport(Glibc)
            guard let trim else { return }
            _ = trim(0)
        #endif
    }

    #if canImport(Glibc)
        private typealias Trim = @convention(c) (Int) -> Int32
        private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
            unsafeBitCast($0, to: Trim.self)
        }
    #endif
}
