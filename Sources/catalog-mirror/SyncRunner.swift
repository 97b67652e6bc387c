import CatalogMirror
import Dispatch
import Foundation
import Synchronization

/// Runs one sync for a command: the engine, the live progress line (terminal only), SIGINT and
/// SIGTERM handling (cancel, leave the mirror as it was), the report and metrics files, and the
/// final lines.
struct SyncRunner {
    /// Print only errors.
    let quiet: Bool
    /// `--report FILE`.
    let reportFile: URL?
    /// `--verbose` or `--debug`: the log lines take the place of the live progress line, which
    /// would be drawn over them.
    var logs = false

    enum Outcome {
        case finished(RunReport)
        case stopped(MirrorError)

        var exitStatus: Int32 {
            switch self {
            case .finished(let report): report.exitStatus
            case .stopped(let error): error.exitStatus
            }
        }
    }

    private enum Event: Sendable {
        case result(Result<RunReport, MirrorError>)
        case signal(Int32)
        case displayEnded
    }

    func run(_ configuration: MirrorConfiguration) async -> Outcome {
        let progress = ProgressBoard()
        let engine = MirrorEngine(configuration: configuration, progress: progress)
        let showProgress = !quiet && !logs && isatty(STDERR_FILENO) == 1
        let startedAt = Date()
        let result: Result<RunReport, MirrorError> = await withTaskGroup(of: Event.self) { group in
            group.addTask {
                do throws(MirrorError) {
                    let report = try await engine.run()
                    return .result(.success(report))
                } catch {
                    return .result(.failure(error))
                }
            }
            group.addTask {
                for await signal in Self.signals() { return .signal(signal) }
                return .displayEnded
            }
            if showProgress {
                group.addTask {
                    await ProgressDisplay(board: progress).run()
                    return .displayEnded
                }
            }
            var outcome: Result<RunReport, MirrorError> = .failure(.cancelled)
            while let event = await group.next() {
                switch event {
                case .result(let result):
                    outcome = result
                    group.cancelAll()
                case .signal(let signal):
                    printError(
                        "catalog-mirror: received \(signal == SIGINT ? "SIGINT" : "SIGTERM"), stopping; the mirror is left as it was"
                    )
                    group.cancelAll()
                case .displayEnded:
                    break
                }
            }
            return outcome
        }
        switch result {
        case .success(let report):
            writeReport(report)
            writeMetrics(report, configuration)
            if !quiet {
                for warning in report.warnings { printError("catalog-mirror: warning: \(warning)") }
                printError(report.summaryLine)
            }
            // A finished run whose upload to the bucket failed (`--publish`) names the object.
            if let error = report.error { printError("catalog-mirror: error: \(error)") }
            return .finished(report)
        case .failure(let error):
            let report = RunReport.stopped(error, configuration: configuration, startedAt: startedAt, progress: progress.snapshot)
            writeReport(report)
            // A run that found the lock held is not this mirror's run: the one holding it writes.
            if error.code != .locked { writeMetrics(report, configuration) }
            printError("catalog-mirror: error: \(error.description)")
            return .stopped(error)
        }
    }

    private func writeReport(_ report: RunReport) {
        guard let reportFile else { return }
        var report = report
        report.peakMemoryBytes = ProcessMemory.peakResidentBytes()
        do {
            try report.write(to: reportFile)
        } catch {
            printError("catalog-mirror: warning: cannot write the report: \(error.message)")
        }
    }

    /// `--metrics FILE`, after every run but a dry run (which writes nothing).
    private func writeMetrics(_ report: RunReport, _ configuration: MirrorConfiguration) {
        guard let file = configuration.metricsFile, !configuration.dryRun else { return }
        do {
            try RunMetrics.write(report, build: .init(version: CatalogMirrorVersion.current, revision: gitRevision), to: file)
        } catch {
            printError("catalog-mirror: warning: cannot write the metrics: \(error.message)")
        }
    }

    /// SIGINT and SIGTERM as a stream; the default handlers are replaced while it is iterated.
    private static func signals() -> AsyncStream<Int32> {
        AsyncStream { continuation in
            let sources = [SIGINT, SIGTERM].map { number in
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { continuation.yield(number) }
                source.resume()
                return source
            }
            let box = SignalSources(sources: sources)
            continuation.onTermination = { _ in box.cancel() }
        }
    }
}

/// Holds the dispatch sources of `SyncRunner.signals()` until the stream ends; the mutex makes
/// the holder Sendable without vouching for the sources themselves.
private final class SignalSources: Sendable {
    private let sources: Mutex<[any DispatchSourceSignal]>

    init(sources: sending [any DispatchSourceSignal]) { self.sources = Mutex(sources) }

    func cancel() {
        sources.withLock { sources in
            for source in sources { source.cancel() }
            sources = []
        }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}
