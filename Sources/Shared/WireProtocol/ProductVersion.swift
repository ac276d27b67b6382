/// The version both executables report; bumped together with packaging/changelog.
public enum ProductVersion {
    public static let current = "0.1.0"
}
