import ArgumentParser
import Logging

/// `-v/--verbose` and `--debug`, as wget and rclone name them: diagnostics on standard error,
/// one line per event. Neither is given by default, and a run from cron prints only its warnings
/// and summary (or, with `--quiet`, only errors).
struct LogOptions: ParsableArguments {
    @Flag(
        name: [.short, .long],
        help: "Say what each stage decided: pages read, keys found, each key's verdict, each fetch's outcome.")
    var verbose = false

    @Flag(help: "As --verbose, and every HTTP request: method, URL, status and time taken.")
    var debug = false

    /// Whether any diagnostics were asked for (the live progress line is then left off, so the
    /// lines are not drawn over).
    var isEnabled: Bool { verbose || debug }

    /// The logger for the run: `debug` with `--debug`, `info` with `--verbose`, else `notice`
    /// (nothing the library logs), writing to standard error.
    var logger: Logger {
        var logger = Logger(label: "catalog-mirror") { _ in StandardErrorLogHandler() }
        logger.logLevel = debug ? .debug : verbose ? .info : .notice
        return logger
    }
}
