/// The version string printed by `--version` and sent in the User-Agent.
public enum CatalogMirrorVersion {
    /// This build's version, as `--version` prints it.
    public static let current = "0.1.0"
}
