import Testing

@testable import MirrorCore
@testable import MirrorCrawl
@testable import MirrorMarkup

@Suite("Discoveries handed to the engine in batches")
struct DiscoveryBatchesTests {
    static func discovery(_ number: Int) -> Discovery {
        Discovery(
            key: CanonicalURL("http://h/\(number).png")!, reference: ImageReference(url: "\(number).png"), document: number / 10)
    }

    @Test("full batches go at once, a flush sends the rest, nothing is lost, reordered or sent empty")
    func batches() async {
        let batches = DiscoveryBatches(size: 4)
        let producer = Task {
            // A document of ten keys (two full batches and a flushed rest), an empty flush, then
            // a document of exactly one batch.
            for number in 0..<10 { await batches.send(Self.discovery(number)) }
            await batches.flush()
            await batches.flush()
            for number in 10..<14 { await batches.send(Self.discovery(number)) }
            await batches.flush()
            batches.finish()
        }
        var sizes: [Int] = []
        var keys: [String] = []
        for await batch in batches {
            sizes.append(batch.count)
            keys += batch.map(\.key.string)
        }
        await producer.value
        #expect(sizes == [4, 4, 2, 4])
        #expect(keys == (0..<14).map { "http://h/\($0).png" })
    }
}
