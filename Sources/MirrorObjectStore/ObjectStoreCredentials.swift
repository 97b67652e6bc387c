import Foundation

/// An access key, its secret and, for temporary credentials, the session token.
///
/// Never written anywhere: not in settings, the report or a log line. Its `description`
/// shows the access key's id only, so a stray interpolation leaks nothing.
package struct ObjectStoreCredentials: Sendable, Equatable, CustomStringConvertible {
    /// `AWS_ACCESS_KEY_ID` / `aws_access_key_id`.
    package var accessKeyID: String
    /// `AWS_SECRET_ACCESS_KEY` / `aws_secret_access_key`.
    package var secretAccessKey: String
    /// `AWS_SESSION_TOKEN` / `aws_session_token`; nil for long-term keys.
    package var sessionToken: String?

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    package var description: String { "access key \(accessKeyID) (secret not shown)" }
}

/// The shared AWS files as the AWS CLI and SDKs read them: INI sections of `key = value`
/// lines, `#` and `;` comments; in the credentials file a profile is `[name]`, in the config
/// file `[profile name]` (and `[default]`). Indented lines (a nested `s3 =` block) are skipped.
package struct AWSSharedFile: Sendable, Equatable {
    /// Section name → its keys, lower-cased, and values.
    package var sections: [String: [String: String]]

    package init(text: String) {
        var sections: [String: [String: String]] = [:]
        var current: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            if rawLine.first == " " || rawLine.first == "\t" { continue }
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                current = name.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                continue
            }
            guard let section = current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            sections[section, default: [:]][key] = value
        }
        self.sections = sections
    }

    /// The file at `path`, or nil when there is none (a missing file is no error, as for the AWS CLI).
    package static func read(_ path: String) -> AWSSharedFile? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return AWSSharedFile(text: String(decoding: data, as: UTF8.self))
    }

    /// The keys of `profile` in a credentials file (`[name]`).
    package func credentialsProfile(_ profile: String) -> [String: String]? { sections[profile] }

    /// The keys of `profile` in a config file (`[profile name]`, or `[default]`).
    package func configProfile(_ profile: String) -> [String: String]? {
        sections["profile \(profile)"] ?? (profile == "default" ? sections["default"] : nil)
    }
}
