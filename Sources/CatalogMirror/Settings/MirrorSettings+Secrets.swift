import Foundation
import MirrorFetch

/// What of the settings may be saved under DIR, which a web server may serve, and what the
/// user is warned about on every run.
extension MirrorSettings {
    /// These settings as they may be written under DIR: inline credential headers
    /// (`Authorization`, `Cookie`, `Proxy-Authorization`...) and a proxy URL with credentials
    /// are left out, since whatever is under DIR may be served. Paths of `--header @FILE`,
    /// `--cookies` and the `--netrc` flag are kept; the files themselves are never copied.
    public var withoutSecrets: MirrorSettings {
        var copy = self
        copy.header = header.map { list in
            list.filter { entry in entry.hasPrefix("@") || !(HeaderField(line: entry)?.isCredential ?? true) }
        }
        if copy.header?.isEmpty == true { copy.header = nil }
        if let proxy, let server = ProxyServer(proxy), server.hasCredentials { copy.proxy = nil }
        return copy
    }

    /// The names of the inline headers of `header` that carry a credential and are used for
    /// this run only.
    public var inlineCredentialHeaders: [String] {
        (header ?? []).filter { !$0.hasPrefix("@") }.compactMap { HeaderField(line: $0) }.filter(\.isCredential).map(\.name)
    }

    /// The warnings these settings call for, printed on every run they are used: certificates
    /// not checked, and credentials given inline that the cron form will not have.
    public var networkWarnings: [String] {
        var warnings: [String] = []
        if noCheckCertificate ?? false {
            warnings.append(
                "--no-check-certificate: HTTPS certificates are not checked; anyone on the way can change what is mirrored")
        }
        for name in inlineCredentialHeaders {
            warnings.append(
                "--header \(name) given inline is used for this run only and not saved; for the cron form, put it in a file and pass --header @FILE"
            )
        }
        if let proxy, let server = ProxyServer(proxy), server.hasCredentials {
            warnings.append(
                "--proxy credentials are used for this run only and not saved; for the cron form, set https_proxy and http_proxy in the job's environment"
            )
        }
        return warnings
    }
}
