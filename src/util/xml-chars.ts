/**
 * XML 1.0 holds only the characters of its `Char` production (§2.2): tab, line feed, carriage
 * return, U+0020–U+D7FF, U+E000–U+FFFD and U+10000–U+10FFFF. Anything else — a C0 control, a lone
 * surrogate, U+FFFE — makes the whole document ill-formed, and a reader drops every entry with it.
 * Text from feeds and pages may hold them; the archive keeps what was published, and what Forest
 * writes as XML shows each as U+FFFD, the replacement character, in its place.
 */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export const xmlChars = (text: string): string => text.replace(NOT_XML_CHAR, '\uFFFD');
