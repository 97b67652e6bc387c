import Foundation
import Testing

@testable import MirrorCore
@testable import MirrorValidate

@Suite("robots.txt")
struct RobotsTxtTests {
    let text = """
        User-agent: *
        Disallow: /private/
        Disallow: /*.gif$

        User-agent: other-bot
        Disallow: /

        # our own group
        User-agent: Catalog-Mirror
        User-agent: somebody
        Disallow: /gallery/secret
        Allow: /gallery/secret/public
        """

    func allows(_ robots: RobotsTxt, _ path: String) -> Bool {
        robots.allows(CanonicalURL("http://h" + path)!)
    }

    @Test("our product token's group applies, with the longest match winning")
    func ownGroup() {
        let robots = RobotsTxt(parsing: text, userAgent: "catalog-mirror")
        #expect(!allows(robots, "/gallery/secret/x.png"))
        #expect(allows(robots, "/gallery/secret/public/x.png"))
        #expect(allows(robots, "/private/x.png"))  // the * group does not apply when ours exists
    }

    @Test("the * group applies to everyone else, with wildcards and $")
    func starGroup() {
        let robots = RobotsTxt(parsing: text, userAgent: "unknown-bot")
        #expect(!allows(robots, "/private/a.png"))
        #expect(!allows(robots, "/x/y.gif"))
        #expect(allows(robots, "/x/y.gif?v=1"))
        #expect(allows(robots, "/public/a.png"))
    }

    @Test("an allow wins a tie; empty disallow allows everything")
    func ties() {
        let robots = RobotsTxt(parsing: "User-agent: *\nDisallow: /a\nAllow: /a\nDisallow:\n", userAgent: "x")
        #expect(allows(robots, "/a"))
        #expect(RobotsTxt.disallowAll.allows(CanonicalURL("http://h/")!) == false)
        #expect(RobotsTxt.allowAll.allows(CanonicalURL("http://h/x")!))
    }
}
