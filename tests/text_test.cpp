// core/text.hpp: JSON strings valid whatever bytes a name holds; CSV fields; messages on
// one line.
#include "core/text.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace perron {
namespace {

// The fewest digits that read back; whole numbers keep their digits.
TEST(format_shortest, FewestDigitsWholeNumbersWritten) {
  EXPECT_EQ(format_shortest(-9.017133), "-9.017133");
  EXPECT_EQ(format_shortest(10), "10");
  EXPECT_EQ(format_shortest(1000), "1000");
  EXPECT_EQ(format_shortest(2.5e6), "2500000");
  EXPECT_EQ(format_shortest(0.1), "0.1");
  EXPECT_EQ(format_shortest(1e-400), "0");
  EXPECT_EQ(format_shortest(1e20), "1e+20");
  EXPECT_EQ(format_shortest(1.5e-7), "1.5e-07");
  EXPECT_EQ(std::strtod(format_shortest(0.1 + 0.2).c_str(), nullptr), 0.1 + 0.2);
}

// CSV fields are quoted only where they must be (RFC 4180).
TEST(csv_field, QuotedWhereACommaQuoteOrLineBreakWouldSplitTheRow) {
  EXPECT_EQ(csv_field("cnr-2000.mtx"), "cnr-2000.mtx");
  EXPECT_EQ(csv_field("a,b.mtx"), "\"a,b.mtx\"");
  EXPECT_EQ(csv_field("say \"hi\".mtx"), "\"say \"\"hi\"\".mtx\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(json_escape, QuotesBackslashesAndControlBytes) {
  EXPECT_EQ(json_escape("a\"b\\c\n\t\r\x01"), "a\\\"b\\\\c\\n\\t\\r\\u0001");
}

// Well-formed UTF-8 passes as it is: 2, 3 and 4 bytes, the ends of each range.
TEST(json_escape, WellFormedUtf8IsKept) {
  for (const std::string s :
       {"caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80",
        "\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf"})
    EXPECT_EQ(json_escape(s), s);
}

// A byte of no well-formed sequence is \udcXX (Python's surrogateescape):
// a Latin-1 name, a stray continuation byte, overlong forms, surrogates,
// code points past U+10FFFF and sequences cut short. Written raw, such a byte
// made the whole --json document invalid UTF-8.
TEST(json_escape, IllFormedBytesAreEscapedOneByOne) {
  EXPECT_EQ(json_escape("g\xe9.mtx"), "g\\udce9.mtx");                         // Latin-1 e-acute
  EXPECT_EQ(json_escape("\x80"), "\\udc80");                                   // a continuation alone
  EXPECT_EQ(json_escape("\xc0\xaf"), "\\udcc0\\udcaf");                        // overlong '/'
  EXPECT_EQ(json_escape("\xe0\x80\xaf"), "\\udce0\\udc80\\udcaf");             // overlong, 3 bytes
  EXPECT_EQ(json_escape("\xed\xa0\x80"), "\\udced\\udca0\\udc80");             // the surrogate U+D800
  EXPECT_EQ(json_escape("\xf4\x90\x80\x80"), "\\udcf4\\udc90\\udc80\\udc80");  // U+110000
  EXPECT_EQ(json_escape("\xf5"), "\\udcf5");
  EXPECT_EQ(json_escape("\xe2\x82"), "\\udce2\\udc82");  // cut short at the end
  EXPECT_EQ(json_escape("\xe2\x82x"), "\\udce2\\udc82x");
  EXPECT_EQ(json_escape("\xff\xc3\xa9"), "\\udcff\xc3\xa9");  // the good sequence after it kept
}

TEST(utf8_sequence, Lengths) {
  const std::string s = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff";
  EXPECT_EQ(utf8_sequence(s, 0), 1u);
  EXPECT_EQ(utf8_sequence(s, 1), 2u);
  EXPECT_EQ(utf8_sequence(s, 3), 3u);
  EXPECT_EQ(utf8_sequence(s, 6), 4u);
  EXPECT_EQ(utf8_sequence(s, 10), 0u);
  EXPECT_EQ(utf8_sequence(s, 2), 0u);  // a continuation byte starts nothing
}

TEST(one_line, ControlBytesShownAsHex) {
  EXPECT_EQ(one_line("g\n.mtx\r:\tx\x7f"), "g\\x0a.mtx\\x0d:\tx\\x7f");
  EXPECT_EQ(one_line("caf\xc3\xa9"), "caf\xc3\xa9");
}

}  // namespace
}  // namespace perron
