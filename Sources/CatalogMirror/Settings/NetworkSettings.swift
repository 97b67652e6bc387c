import Foundation
import MirrorFetch

/// The parts of `MirrorConfiguration.init(settings:output:environment:)` that read files and
/// the environment: proxy routes, and the headers, cookies and login sent to the source.
enum NetworkSettings {
    /// The proxy routes of `--proxy` (else `https_proxy`/`http_proxy`/`all_proxy` and
    /// `no_proxy` from `environment`), once `tls` is known to load.
    static func proxyRoutes(
        _ option: String?, tls: TLSOptions, environment: [String: String]
    ) throws(SettingsError) -> ProxyRoutes {
        do {
            _ = try tls.clientConfiguration()
            return try ProxyRoutes.resolve(option: option, environment: environment)
        } catch let error as TLSOptions.Error {
            throw SettingsError(error.message)
        } catch let error as ProxyRoutes.Error {
            throw SettingsError(error.message)
        } catch {
            throw SettingsError("\(error)")
        }
    }

    /// The identity sent to `host` (every `--header` line, reading each `@FILE`; the
    /// `--cookies` file; the `--netrc` login from `environment`'s `NETRC` or `~/.netrc`), and
    /// the `User-Agent` the headers named, taken out of them.
    static func identity(
        headers: [String], cookies: String?, netrc: Bool, host: String, environment: [String: String]
    ) throws(SettingsError) -> (identity: RequestIdentity, userAgent: String?) {
        var identity = RequestIdentity(credentialHost: host)
        do throws(RequestIdentity.Error) {
            for entry in headers {
                if entry.hasPrefix("@") {
                    identity.headers += try HeaderField.read(file: String(entry.dropFirst()))
                } else if let field = HeaderField(line: entry) {
                    identity.headers.append(field)
                } else {
                    throw RequestIdentity.Error("--header \"\(entry.prefix(100))\" is not \"Name: value\" or @FILE")
                }
            }
            if let cookies { identity.cookies = try CookieJar(file: cookies) }
            if netrc {
                identity.login = try NetrcLogin.read(file: NetrcLogin.defaultPath(environment: environment), host: host)
            }
        } catch {
            throw SettingsError(error.message)
        }
        let userAgent = identity.headers.last(where: { $0.name.lowercased() == "user-agent" })?.value
        identity.headers.removeAll { $0.name.lowercased() == "user-agent" }
        return (identity, userAgent)
    }
}
