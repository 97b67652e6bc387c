import Foundation

/// One image of the bundled sample gallery: its name and price as the gallery shows them, and
/// its file in `Sources/SampleGallery/Images/`, compiled in by the EmbedFolder plugin.
struct SampleImage: Sendable {
    let name: String
    let price: String
    /// The file's name in `Images/`.
    let file: String

    /// `png`, `jpeg` or `gif`, from the file's extension.
    var format: String {
        let suffix = file.split(separator: ".").last.map(String.init) ?? ""
        return suffix == "jpg" ? "jpeg" : suffix
    }

    /// The image's bytes (empty if `file` is not in `Images/`, which `SampleGalleryTests` rules out).
    var bytes: [UInt8] { Self.embeddedFiles[file].flatMap { Data(base64Encoded: $0) }.map { Array($0) } ?? [] }

    /// The bundled sample gallery, in the order it shows its images. The images were drawn
    /// once (shapes, a palette and some noise, 320 × 320) and are kept as files.
    static let bundled: [SampleImage] = [
        SampleImage(name: "Smiling Face", price: "42.00", file: "smiling-face.png"),
        SampleImage(name: "Sunset Over Dunes", price: "58.00", file: "sunset-over-dunes.jpg"),
        SampleImage(name: "Blue Lagoon", price: "20.25", file: "blue-lagoon.png"),
        SampleImage(name: "Crimson Star", price: "15.50", file: "crimson-star.gif"),
        SampleImage(name: "Mossy Stones", price: "27.00", file: "mossy-stones.png"),
        SampleImage(name: "Paper Boats", price: "38.00", file: "paper-boats.jpg"),
        SampleImage(name: "Lantern Festival", price: "44.25", file: "lantern-festival.jpg"),
        SampleImage(name: "Night Owl", price: "54.50", file: "night-owl.gif"),
        SampleImage(name: "Citrus Slices", price: "33.25", file: "citrus-slices.png"),
        SampleImage(name: "Quiet Harbor", price: "11.00", file: "quiet-harbor.jpg"),
        SampleImage(name: "Copper Kettle", price: "14.00", file: "copper-kettle.png"),
        SampleImage(name: "Winter Birch", price: "8.25", file: "winter-birch.gif"),
        SampleImage(name: "Ocean Spiral", price: "25.99", file: "ocean-spiral.png"),
        SampleImage(name: "Festival Kite", price: "39.50", file: "festival-kite.jpg"),
        SampleImage(name: "Saffron Fields", price: "43.50", file: "saffron-fields.png"),
        SampleImage(name: "Glass Marbles", price: "35.99", file: "glass-marbles.gif"),
        SampleImage(name: "Cactus Bloom", price: "17.99", file: "cactus-bloom.png"),
        SampleImage(name: "Amber Leaves", price: "18.00", file: "amber-leaves.jpg"),
        SampleImage(name: "Midnight Garden", price: "23.50", file: "midnight-garden.png"),
        SampleImage(name: "Cloud Castle", price: "28.50", file: "cloud-castle.gif"),
        SampleImage(name: "Coral Reef", price: "34.25", file: "coral-reef.jpg"),
        SampleImage(name: "Honeycomb", price: "41.00", file: "honeycomb.jpg"),
        SampleImage(name: "Violet Hour", price: "29.25", file: "violet-hour.png"),
        SampleImage(name: "Café au Lait", price: "24.99", file: "cafe-au-lait.gif"),
        SampleImage(name: "Rainy Window", price: "16.99", file: "rainy-window.png"),
        SampleImage(name: "Golden Compass", price: "6.25", file: "golden-compass.jpg"),
        SampleImage(name: "Snow Peaks", price: "10.99", file: "snow-peaks.png"),
        SampleImage(name: "Tangerine Dream", price: "21.99", file: "tangerine-dream.jpg"),
        SampleImage(name: "Forest Path", price: "6.50", file: "forest-path.png"),
        SampleImage(name: "Pixel Heart", price: "43.25", file: "pixel-heart.jpg"),
        SampleImage(name: "Zebra Stripes", price: "33.50", file: "zebra-stripes.png"),
        SampleImage(name: "Northern Lights", price: "47.25", file: "northern-lights.gif"),
    ]
}
