import Foundation

extension FetchConfiguration {
    /// Fills the network side from saved or given `settings` and the process `environment`:
    /// TLS options, proxy routes (`--proxy`, else `https_proxy`/`http_proxy`/`all_proxy` and
    /// `no_proxy`), headers (reading every `--header @FILE`), cookies, the `--netrc` login for the
    /// source's host, the user agent and the speed limit. Throws a one-line `SettingsError`
    /// naming the file or value that cannot be used.
    public mutating func readNetworkSettings(
        _ settings: MirrorSettings, environment: [String: String]
    ) throws(SettingsError) {
        tls = TLSOptions(caCertificateFile: settings.caCertificate, checkCertificates: !(settings.noCheckCertificate ?? false))
        do {
            _ = try tls.clientConfiguration()
            proxy = try ProxyRoutes.resolve(option: settings.proxy, environment: environment)
        } catch let error as TLSOptions.Error {
            throw SettingsError(error.message)
        } catch let error as ProxyRoutes.Error {
            throw SettingsError(error.message)
        } catch {
            throw SettingsError("\(error)")
        }
        guard let source = CanonicalURL(settings.source) else {
            throw SettingsError("the source \"\(settings.source)\" is not an http or https URL")
        }
        var identity = RequestIdentity(credentialHost: source.host)
        do throws(RequestIdentity.Error) {
            for entry in settings.header ?? [] {
                if entry.hasPrefix("@") {
                    identity.headers += try HeaderField.read(file: String(entry.dropFirst()))
                } else if let field = HeaderField(line: entry) {
                    identity.headers.append(field)
                } else {
                    throw RequestIdentity.Error("--header \"\(entry.prefix(100))\" is not \"Name: value\" or @FILE")
                }
            }
            if let cookies = settings.cookies { identity.cookies = try CookieJar(file: cookies) }
            if settings.netrc ?? false {
                let path = NetrcLogin.defaultPath(environment: environment)
                identity.login = try NetrcLogin.read(file: path, host: source.host)
            }
        } catch {
            throw SettingsError(error.message)
        }
        if let agent = identity.headers.last(where: { $0.name.lowercased() == "user-agent" }) { userAgent = agent.value }
        if let agent = settings.userAgent { userAgent = agent }
        identity.headers.removeAll { $0.name.lowercased() == "user-agent" }
        self.identity = identity
        if let speedLimit = settings.speedLimit { lowSpeed.bytesPerSecond = max(0, speedLimit) }
        if let speedTime = settings.speedTime { lowSpeed.duration = .seconds(max(0, speedTime)) }
    }
}

extension MirrorSettings {
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
