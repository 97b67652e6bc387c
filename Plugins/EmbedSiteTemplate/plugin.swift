import Foundation
import PackagePlugin

/// Writes `DefaultSiteTemplate.swift` (`SiteTemplate.embeddedFiles`: every file of the package's
/// `site-template/` folder, by relative path, base64-encoded) at build time, so the default
/// template is compiled into the binary without a generated copy of it in git.
///
/// Why compiled in: SwiftPM's resources live next to the build products and are lost when the
/// binary is installed or copied into an image, and the installed binary must render pages
/// without the source tree. Why base64 for every file: the bytes are what the mirror gets, and
/// one encoding needs no rule for which file is text.
///
/// A build command whose inputs are the template's files and folders: it runs again when a file
/// changes, or when one is added to or removed from a folder (the folder changes), and lists
/// the files itself when it runs, because SwiftPM may reuse a cached plan made before a file
/// was added. The output is replaced only when it changed, so an unchanged template
/// recompiles nothing.
@main
struct EmbedSiteTemplate: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = context.package.directoryURL.appendingPathComponent("site-template")
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("DefaultSiteTemplate.swift")
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else {
            throw PluginError("cannot read \(folder.path): the package's site-template/ folder")
        }
        var inputs = [folder]
        while let path = walker.nextObject() as? String { inputs.append(folder.appendingPathComponent(path)) }
        return [
            .buildCommand(
                displayName: "Embedding the site template", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "embed-site-template", folder.path, output.path],
                inputFiles: inputs, outputFiles: [output])
        ]
    }

    /// A POSIX shell script, `sh -c SCRIPT NAME FOLDER OUTPUT`: one dictionary entry per file
    /// under FOLDER, in byte order of their paths so every machine writes the same file.
    static let script = #"""
        set -e
        cd "$1"
        files=$(find . -type f | sed 's|^\./||' | LC_ALL=C sort)
        {
            printf '%s\n' '// swift-format-ignore-file' \
                '// Generated at build time by the EmbedSiteTemplate plugin from site-template/.' '' \
                'extension SiteTemplate {' \
                '    /// The files of site-template/ as compiled into the binary, by relative path.'
            if [ -z "$files" ]; then
                printf '%s\n' '    static let embeddedFiles: [String: EmbeddedFile] = [:]'
            else
                printf '%s\n' '    static let embeddedFiles: [String: EmbeddedFile] = ['
                printf '%s\n' "$files" | while IFS= read -r file; do
                    key=$(printf '%s' "$file" | sed 's/[\\"]/\\&/g')
                    printf '        "%s": .base64("%s"),\n' "$key" "$(base64 -w 0 "$file")"
                done
                printf '%s\n' '    ]'
            fi
            printf '%s\n' '}'
        } > "$2.new"
        if cmp -s "$2.new" "$2"; then rm "$2.new"; else mv "$2.new" "$2"; fi
        """#
}

/// Why the plugin could not plan the build, in one line.
struct PluginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
