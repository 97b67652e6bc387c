import Foundation
import PackagePlugin

/// Writes `EmbeddedFiles.swift` at build time: an extension of one of the target's types with
/// `static let embeddedFiles: [String: String]`, every file of a folder of the package, by
/// relative path, base64-encoded. So files the binary needs are compiled into it without a
/// generated copy of them in git. Which folder, and which type holds it, is in `Self.folders`:
/// `site-template/` for `MirrorPublish` (`SiteTemplate`), the sample gallery's images for
/// `SampleGallery` (`SampleImage`).
///
/// Why compiled in: SwiftPM's resources live next to the build products and are lost when the
/// binary is installed or copied into an image, and the installed binary must render pages
/// (and serve `demo`) without the source tree. Why base64 for every file: the bytes are what
/// the mirror gets, and one encoding needs no rule for which file is text.
///
/// A build command whose inputs are the folder's files and folders: it runs again when a file
/// changes, or when one is added to or removed from a folder (the folder changes), and lists
/// the files itself when it runs, because SwiftPM may reuse a cached plan made before a file
/// was added. The output is replaced only when it changed, so an unchanged folder recompiles
/// nothing.
@main
struct EmbedFolder: BuildToolPlugin {
    /// For each target that uses the plugin: the folder it embeds (relative to the package)
    /// and the type whose extension holds the files.
    static let folders: [String: (folder: String, type: String)] = [
        "MirrorPublish": ("site-template", "SiteTemplate"),
        "SampleGallery": ("Sources/SampleGallery/Images", "SampleImage"),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let (name, type) = Self.folders[target.name] else {
            throw PluginError("the EmbedFolder plugin has no folder for target \(target.name) (see EmbedFolder.folders)")
        }
        let folder = context.package.directoryURL.appendingPathComponent(name)
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedFiles.swift")
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else {
            throw PluginError("cannot read \(folder.path): the folder target \(target.name) embeds")
        }
        var inputs = [folder]
        while let path = walker.nextObject() as? String { inputs.append(folder.appendingPathComponent(path)) }
        return [
            .buildCommand(
                displayName: "Embedding the files of \(name) into \(target.name)", executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", Self.script, "embed-folder", folder.path, output.path, name, type],
                inputFiles: inputs, outputFiles: [output])
        ]
    }

    /// A POSIX shell script, `sh -c SCRIPT NAME FOLDER OUTPUT FOLDERNAME TYPE`: one dictionary
    /// entry per file under FOLDER, in byte order of their paths so every machine writes the
    /// same file.
    static let script = #"""
        set -e
        cd "$1"
        files=$(find . -type f | sed 's|^\./||' | LC_ALL=C sort)
        {
            printf '%s\n' '// swift-format-ignore-file' \
                "// Generated at build time by the EmbedFolder plugin from $3/." '' \
                "extension $4 {" \
                "    /// The files of $3/ as compiled into the binary, base64-encoded, by relative path."
            if [ -z "$files" ]; then
                printf '%s\n' '    static let embeddedFiles: [String: String] = [:]'
            else
                printf '%s\n' '    static let embeddedFiles: [String: String] = ['
                printf '%s\n' "$files" | while IFS= read -r file; do
                    key=$(printf '%s' "$file" | sed 's/[\\"]/\\&/g')
                    printf '        "%s": "%s",\n' "$key" "$(base64 -w 0 "$file")"
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
