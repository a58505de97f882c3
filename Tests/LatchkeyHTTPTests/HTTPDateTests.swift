import FoundationEssentials
import Testing

@testable import LatchkeyHTTP

@Suite struct HTTPDateTests {
    @Test func parsesIMFFixdate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT")?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT")?.timeIntervalSince1970 == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT")?.timeIntervalSince1970 == 1_835_481_599)
    }

    @Test func rejectsOtherFormsAndImpossibleDates() {
        for bad in [
            "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 UTC",
            "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Xyz, 06 Nov 1994 08:49:37 GMT",
            "", "Sun, 6 Nov 1994 08:49:37 GMT"
        ] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func formatRoundTrips() {
        for t in [0.0, 784_111_777, 1_835_481_599, 4_102_444_800] {
            let s = HTTPDate.format(Timestamp(timeIntervalSince1970: t))
            #expect(HTTPDate.parse(s)?.timeIntervalSince1970 == t, "\(s)")
        }
        #expect(HTTPDate.format(Timestamp(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test func serverDateComesFromTheDateHeader() {
        let url = HTTPURL(string: "https://example.com/")!
        let r = HTTPResponse(status: 200, headers: [("date", "Sun, 06 Nov 1994 08:49:37 GMT")], url: url)
        #expect(r.serverDate?.timeIntervalSince1970 == 784_111_777)
        #expect(HTTPResponse(status: 200, url: url).serverDate == nil)
    }
}
