import Foundation
import MirrorCore
import MirrorPublish
import MirrorStore

/// Reads and writes `DIR/.catalog-mirror/settings.json`: the encoded `MirrorSettings`, keys sorted,
/// without secrets (`MirrorSettings.withoutSecrets`).
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

    /// Writes `settings` without their secrets, atomically (temporary file, then rename).
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
