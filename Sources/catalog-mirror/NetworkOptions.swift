import ArgumentParser
import CatalogMirror
import Foundation

/// The network options of `sync`, named as curl and wget name them; all are saved with the
/// mirror, as `SyncOptions`' are (by their property names, through this group's encoding),
/// except the credentials `MirrorSettings.withoutSecrets` leaves out. Paths are saved absolute.
struct NetworkOptions: ParsableArguments, Encodable {
    @Option(
        name: .customLong("ca-certificate"),
        help: ArgumentHelp("Trust the certificates in this PEM file as well as the system's.", valueName: "FILE"),
        transform: SavedForm.path)
    var caCertificate: String?

    @Flag(help: "Do not check HTTPS certificates (a warning is printed on every run).")
    var noCheckCertificate = false

    @Option(
        help: ArgumentHelp(
            "Send requests through this proxy (http://[user:password@]host:port, or socks5://host:port); \"\" for none. (default: https_proxy, http_proxy, all_proxy and no_proxy from the environment)",
            valueName: "URL"))
    var proxy: String?

    @Option(
        help: ArgumentHelp(
            "Send this header, or every line of FILE. Credential headers (Authorization, Cookie...) go to the source's host only; given inline they are not saved. Repeatable.",
            valueName: "\"Name: value\"|@FILE"),
        transform: SavedForm.header)
    var header: [String] = []

    @Option(help: ArgumentHelp("Send this User-Agent. (default: \(FetchConfiguration().userAgent))", valueName: "STRING"))
    var userAgent: String?

    @Option(
        help: ArgumentHelp(
            "Send the cookies of this Netscape cookies.txt file where their domain and path match.", valueName: "FILE"),
        transform: SavedForm.path)
    var cookies: String?

    @Flag(help: "Sign in to the source's host with the login in $NETRC or ~/.netrc.")
    var netrc = false

    @Option(
        help: ArgumentHelp(
            "A transfer slower than BYTES per second for --speed-time seconds fails 'timeout'; 0 turns the check off. (default: \(LowSpeedLimit().bytesPerSecond))",
            valueName: "BYTES"))
    var speedLimit: Int?

    @Option(
        help: ArgumentHelp("See --speed-limit. (default: \(LowSpeedLimit().duration.components.seconds))", valueName: "SECONDS"))
    var speedTime: Int?

    func validate() throws {
        if let speedLimit, speedLimit < 0 { throw ValidationError("--speed-limit must be 0 or more (got \(speedLimit))") }
        if let speedTime, speedTime < 1 { throw ValidationError("--speed-time must be at least 1 (got \(speedTime))") }
        if let proxy, !proxy.trimmingCharacters(in: .whitespaces).isEmpty, ProxyServer(proxy) == nil {
            throw ValidationError("--proxy must be http://host:port or socks5://host:port")
        }
        for entry in header where !entry.hasPrefix("@") && HeaderField(line: entry) == nil {
            throw ValidationError("--header takes \"Name: value\" or @FILE (got \"\(entry.prefix(100))\")")
        }
    }
}
