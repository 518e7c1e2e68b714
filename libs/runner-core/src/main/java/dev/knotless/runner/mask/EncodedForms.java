package dev.knotless.runner.mask;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;

/**
 * The ways a tool commonly writes a secret that are not the secret as given: escaped in a JSON
 * string (by the usual escapes, with non-ASCII as {@code \\uXXXX} as Python writes it, or with
 * {@code <>&} escaped as Go writes it), percent-encoded in a URL, and base64 in both alphabets. A
 * base64 form is taken at each of the three places a value can start in a longer base64 text, and
 * only the characters that depend on the value alone, so a secret inside a bigger encoded blob is
 * caught too. Stateless.
 */
final class EncodedForms {

  /** Encoded forms shorter than this are not masked: short base64 runs occur by chance. */
  static final int MIN_ENCODED_CHARS = 8;

  private EncodedForms() {}

  /** The forms of {@code value} other than itself, each at least long enough to mask. */
  static Set<String> of(String value) {
    Set<String> out = new LinkedHashSet<>();
    String json = jsonEscaped(value, false, false);
    out.add(json);
    out.add(jsonEscaped(value, true, false));
    out.add(upperHex(jsonEscaped(value, true, false)));
    out.add(jsonEscaped(value, false, true));
    String url = URLEncoder.encode(value, StandardCharsets.UTF_8);
    out.add(url);
    out.add(url.replace("+", "%20"));
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    for (Base64.Encoder encoder :
        new Base64.Encoder[] {Base64.getEncoder(), Base64.getUrlEncoder()}) {
      for (int offset = 0; offset < 3; offset++) {
        out.add(aligned(encoder, bytes, offset));
      }
    }
    out.remove(value);
    out.removeIf(s -> s.length() < MIN_ENCODED_CHARS);
    return out;
  }

  /**
   * {@code json} with the hex digits of each {@code \\uxxxx} escape in upper case, as Java tools
   * write them.
   */
  static String upperHex(String json) {
    return java.util.regex.Pattern.compile("\\\\u[0-9a-f]{4}")
        .matcher(json)
        .replaceAll(
            m ->
                java.util.regex.Matcher.quoteReplacement(
                    "\\u" + m.group().substring(2).toUpperCase(Locale.ROOT)));
  }

  /**
   * The base64 characters of {@code bytes} encoded after {@code offset} other bytes, keeping only
   * those that depend on {@code bytes} alone.
   */
  static String aligned(Base64.Encoder encoder, byte[] bytes, int offset) {
    byte[] padded = new byte[offset + bytes.length];
    System.arraycopy(bytes, 0, padded, offset, bytes.length);
    String b64 = encoder.withoutPadding().encodeToString(padded);
    int first = (8 * offset + 5) / 6;
    int end = 8 * (offset + bytes.length) / 6;
    return first >= end ? "" : b64.substring(first, end);
  }

  /**
   * {@code v} as a JSON string's content: the usual escapes, and with {@code asciiOnly} every
   * character past ASCII as {@code \\uxxxx}, or with {@code htmlSafe} {@code <>&} so.
   */
  static String jsonEscaped(String v, boolean asciiOnly, boolean htmlSafe) {
    StringBuilder sb = new StringBuilder(v.length() + 8);
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          boolean escape =
              c < 0x20
                  || (asciiOnly && c > 0x7e)
                  || (htmlSafe && (c == '<' || c == '>' || c == '&'));
          if (escape) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    return sb.toString();
  }
}
