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

    /// Keeps every thread's allocations in one arena (`mallopt(M_ARENA_MAX, 1)`), unless the
    /// environment sets `MALLOC_ARENA_MAX` itself. Called first thing by the command, before
    /// any thread but the main one has allocated: a library does not decide this for the
    /// program that links it.
    ///
    /// glibc gives each thread that meets a locked arena one of its own (up to 8 a core), and
    /// keeps what each grew to: a cold sync of 10,000 photos on two cores peaked at 75–77 MB
    /// with the default, 69–70 MB with one arena, for the same CPU
    /// (Benchmarks/results/growth.md, "One malloc arena"). The run's threads allocate little
    /// while they wait on the network and the disk, so they seldom meet on the one lock.
    package static func useOneArena() {
        #if canImport(Glibc)
            guard getenv("MALLOC_ARENA_MAX") == nil, let mallopt else { return }
            // M_ARENA_MAX, from <malloc.h>.
            _ = mallopt(-8, 1)
        #endif
    }

    #if canImport(Glibc)
        private typealias Trim = @convention(c) (Int) -> Int32
        private static let trim: Trim? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim").map {
            unsafeBitCast($0, to: Trim.self)
        }
        private typealias Option = @convention(c) (Int32, Int32) -> Int32
        private static let mallopt: Option? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt").map {
            unsafeBitCast($0, to: Option.self)
        }
    #endif
}
