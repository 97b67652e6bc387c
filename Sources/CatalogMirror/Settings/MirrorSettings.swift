import Foundation

/// The settings a mirror was made with, saved as `DIR/.catalog-mirror/settings.json` after each
/// sync that exits 0 or 1, so the cron form (`catalog-mirror sync --out DIR`) needs no flags.
///
/// Every field but `source` is optional, nil meaning "not given: the default": a missing key
/// takes its default, so a file written by an older version, or trimmed by hand, still loads.
/// Reading and writing are the synthesized `Codable` (optional fields are decoded if present and
/// encoded only when set), and merging goes through the same encoding (`overridden(by:)`), so
/// this field list is the one place a setting is declared for the file.
public struct MirrorSettings: Codable, Sendable, Equatable {
    /// The schema version this build writes and reads.
    public static let currentVersion = 1

    /// The schema version the file was written with. Default: `currentVersion`; a file
    /// without it reads as nil (version 1, the first).
    public var version: Int? = MirrorSettings.currentVersion
    /// The source URL, canonical.
    public var source: String
    public var feed: String?
    public var maxPages: Int?
    public var concurrency: Int?
    public var include: [String]?
    public var exclude: [String]?
    public var allowHost: [String]?
    public var maxSize: Int64?
    public var maxDelete: DeleteLimit?
    public var template: String?
    public var ignoreRobots: Bool?
    public var rate: Double?
    public var connectionsPerHost: Int?
    public var maxDepth: Int?
    public var crawlScope: CrawlConfiguration.Scope?
    public var variants: CrawlConfiguration.Variants?
    /// `--ca-certificate`: the PEM file's absolute path.
    public var caCertificate: String?
    /// `--no-check-certificate`.
    public var noCheckCertificate: Bool?
    /// `--proxy`, without credentials (a proxy URL with credentials is used for its run only).
    public var proxy: String?
    /// `--header`: `@/absolute/path` entries and inline headers that carry no credential.
    public var header: [String]?
    /// `--user-agent`.
    public var userAgent: String?
    /// `--cookies`: the cookies file's absolute path (its contents are never copied here).
    public var cookies: String?
    /// `--netrc`.
    public var netrc: Bool?
    /// `--speed-limit` in bytes per second.
    public var speedLimit: Int?
    /// `--speed-time` in seconds.
    public var speedTime: Int?

    public init(source: String) { self.source = source }

    /// Applies what the command line gave on top of `self`: a given scalar replaces the saved
    /// one; a given repeatable option replaces the whole saved list.
    ///
    /// Done on the encoded form, so the field list above is the only one: a field the command
    /// line did not give is nil, and nil fields are left out of the JSON object, so every key
    /// `other` has replaces `self`'s. A field added to this type is read, saved and merged with
    /// no other change. Throws only for a value JSON cannot hold (a `rate` that is not finite).
    public func overridden(by other: MirrorSettings) throws(SettingsError) -> MirrorSettings {
        do {
            let encoder = JSONEncoder()
            guard let saved = try JSONSerialization.jsonObject(with: encoder.encode(self)) as? [String: Any],
                let given = try JSONSerialization.jsonObject(with: encoder.encode(other)) as? [String: Any]
            else { throw SettingsError("settings do not encode as a JSON object") }
            let merged = saved.merging(given) { _, given in given }
            return try JSONDecoder().decode(MirrorSettings.self, from: JSONSerialization.data(withJSONObject: merged))
        } catch {
            throw SettingsError("cannot combine the saved settings with the options given: \(error) (check the options)")
        }
    }

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

    /// The inline headers of `header` that carry a credential and are used for this run only.
    public var inlineCredentialHeaders: [String] {
        (header ?? []).filter { !$0.hasPrefix("@") }.compactMap { HeaderField(line: $0) }.filter(\.isCredential).map(\.name)
    }
}

/// A settings file that exists but cannot be used, or a setting that cannot be (exit 2);
/// nothing is changed.
public struct SettingsError: Error, Sendable, CustomStringConvertible {
    /// One line: what is wrong, in which file or option, and what to do.
    public let message: String
    /// An error with this one-line `message`.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Reads and writes `settings.json`.
public enum SettingsStore {
    /// The saved settings of the mirror at `layout`, or nil when there are none.
    public static func load(_ layout: MirrorLayout) throws(SettingsError) -> MirrorSettings? {
        let url = layout.settings
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw SettingsError("cannot read the settings file \(url.path) (check its permissions)")
        }
        struct Versioned: Decodable { var version: Int? }
        let version: Int?
        do {
            version = try JSONDecoder().decode(Versioned.self, from: data).version
        } catch {
            throw SettingsError("the settings file \(url.path) is not a JSON object (fix or delete it)")
        }
        if let version, version > MirrorSettings.currentVersion {
            throw SettingsError(
                "the settings file \(url.path) has version \(version); this catalog-mirror reads up to \(MirrorSettings.currentVersion) (upgrade it)"
            )
        }
        let settings: MirrorSettings
        do {
            settings = try JSONDecoder().decode(MirrorSettings.self, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw SettingsError("the settings file \(url.path) has no \"\(key.stringValue)\" (fix or delete it)")
        } catch DecodingError.typeMismatch(_, let context), DecodingError.dataCorrupted(let context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw SettingsError("the settings file \(url.path) has a value of the wrong type at \"\(path)\" (fix or delete it)")
        } catch {
            throw SettingsError("the settings file \(url.path) cannot be read: \(error) (fix or delete it)")
        }
        guard let source = CanonicalURL(settings.source), source.isWeb else {
            throw SettingsError(
                "the settings file \(url.path) has an unusable source \"\(settings.source.prefix(200))\" (fix or delete it)")
        }
        var repaired = settings
        repaired.source = source.string
        return repaired
    }

    /// Writes `settings` atomically (temporary file, then rename).
    public static func save(_ settings: MirrorSettings, _ layout: MirrorLayout) throws(SettingsError) {
        do {
            let data = try JSONCoding.encode(settings.withoutSecrets)
            try FileManager.default.createDirectory(at: layout.temporary, withIntermediateDirectories: true)
            try AtomicFile.write(data, to: layout.settings, temporaryDirectory: layout.temporary)
        } catch {
            throw SettingsError(
                "cannot save the settings file \(layout.settings.path): \(error) (check the permissions of \(layout.state.path))")
        }
    }
}
