package dev.knotless.testing;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * What the parser property tests share: the seed and the number of cases (system properties {@code
 * knotless.fuzz.seed} and {@code knotless.fuzz.iterations}, so a bench run can go longer), random
 * inputs, mutations of a valid input, and the property itself: a parser returns a value or throws
 * one of the exceptions it documents, with a message, and nothing else.
 */
public final class Fuzz {
  public static final long SEED = Long.getLong("knotless.fuzz.seed", 20261202L);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Fuzz() {}

  /** The cases per property: the system property, or the default CI runs. */
  public static int iterations(int ciDefault) {
    return Integer.getInteger("knotless.fuzz.iterations", ciDefault);
  }

  /**
   * Runs a batch of cases, failing it if it takes longer than a bound that grows with the batch.
   */
  public static void batch(int iterations, Runnable cases) {
    assertTimeoutPreemptively(Duration.ofMillis(30_000L + 50L * iterations), cases::run);
  }

  /** A parser under test. */
  public interface Parser<T> {
    Object parse(T input) throws Exception;
  }

  /**
   * Runs one case: the parser returns, or throws an instance of one of {@code allowed} carrying a
   * message. Anything else (a NullPointerException, an IndexOutOfBounds, a StackOverflowError, an
   * OutOfMemoryError) fails the test naming the input and the seed.
   *
   * @return whether the parser returned a value (false: it refused the input)
   */
  @SafeVarargs
  public static <T> boolean holds(
      String what, T input, Parser<T> parser, Class<? extends Throwable>... allowed) {
    try {
      parser.parse(input);
      return true;
    } catch (Throwable t) {
      for (Class<? extends Throwable> c : allowed) {
        if (c.isInstance(t) && t.getMessage() != null && !t.getMessage().isBlank()) {
          return false;
        }
      }
      throw new AssertionError(
          what + " threw " + t + " (seed " + SEED + ") on input " + show(input), t);
    }
  }

  /**
   * What {@link #byteCases} mutates: valid inputs (one picked a case), hostile fragments of the
   * format ({@link #mutate}'s tokens), what opens one level of nesting (one picked a mutation), and
   * the longest random input.
   */
  public record ByteCases(
      List<byte[]> valid, List<byte[]> tokens, List<byte[]> openers, int randomMax) {
    /** One valid input, and random inputs of up to 256 bytes. */
    public static ByteCases of(byte[] valid, List<byte[]> tokens, byte[]... openers) {
      return new ByteCases(List.of(valid), tokens, List.of(openers), 256);
    }

    /** The same, with random inputs of up to {@code max} bytes. */
    public ByteCases randomUpTo(int max) {
      return new ByteCases(valid, tokens, openers, max);
    }

    byte[] next(Random r, int i) {
      return i % 5 == 0
          ? randomBytes(r, randomMax)
          : mutate(
              r,
              valid.get(r.nextInt(valid.size())),
              tokens,
              openers.get(r.nextInt(openers.size())));
    }
  }

  /**
   * The property over hostile bytes, as a batch of {@link #iterations}{@code (ciDefault)} cases:
   * one case in five random bytes, the others a mutation of a valid input; each, turned into the
   * parser's input by {@code asInput}, must {@link #holds hold}, and the batch fails unless some
   * cases were read and some refused ({@link Tally}).
   */
  @SafeVarargs
  public static <T> void byteCases(
      String what,
      Random r,
      int ciDefault,
      ByteCases cases,
      java.util.function.Function<byte[], T> asInput,
      Parser<T> parser,
      Class<? extends Throwable>... allowed) {
    int n = iterations(ciDefault);
    batch(
        n,
        () -> {
          Tally tally = new Tally();
          for (int i = 0; i < n; i++) {
            tally.add(holds(what, asInput.apply(cases.next(r, i)), parser, allowed));
          }
          tally.assertBothOutcomes(what);
        });
  }

  /** Bytes read as UTF-8 text, as a parser of text takes them ({@link #byteCases}' asInput). */
  public static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  /**
   * Counts how the cases of a batch ended, so a batch fails when every case ended the same way: a
   * fuzzer whose every input is refused at the first check tests nothing past it.
   */
  public static final class Tally {
    private int read;
    private int refused;

    public void add(boolean wasRead) {
      if (wasRead) {
        read++;
      } else {
        refused++;
      }
    }

    public void assertBothOutcomes(String what) {
      if (read == 0 || refused == 0) {
        throw new AssertionError(
            what + ": " + read + " inputs read and " + refused + " refused; expected some of each");
      }
    }
  }

  private static String show(Object input) {
    String s =
        input instanceof byte[] b
            ? HexFormat.of().formatHex(b, 0, Math.min(b.length, 512))
                + (b.length > 512 ? "... (" + b.length + " bytes)" : "")
            : String.valueOf(input);
    return s.length() > 600 ? s.substring(0, 600) + "... (" + s.length() + " chars)" : s;
  }

  public static byte[] randomBytes(Random r, int max) {
    byte[] b = new byte[r.nextInt(max + 1)];
    r.nextBytes(b);
    return b;
  }

  /**
   * A mutation of a valid input: bit flips, a truncation, a splice of its own bytes or random ones,
   * a cut-out range, a format's hostile token (a huge length) put somewhere, or deep nesting.
   *
   * @param tokens hostile fragments of the format, one of which may be inserted
   * @param opener what opens one level of nesting in the format
   */
  public static byte[] mutate(Random r, byte[] valid, List<byte[]> tokens, byte[] opener) {
    byte[] b = valid.clone();
    for (int round = 0, n = 1 + r.nextInt(3); round < n; round++) {
      switch (r.nextInt(7)) {
        case 0 -> {
          if (b.length > 0) {
            for (int i = 0, flips = 1 + r.nextInt(4); i < flips; i++) {
              b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
            }
          }
        }
        case 1 -> b = Arrays.copyOf(b, r.nextInt(b.length + 1));
        case 2 -> {
          byte[] piece;
          if (r.nextBoolean() && b.length > 0) {
            int from = r.nextInt(b.length);
            piece = Arrays.copyOfRange(b, from, from + r.nextInt(b.length - from + 1));
          } else {
            piece = randomBytes(r, 16);
          }
          b = insert(b, r.nextInt(b.length + 1), piece);
        }
        case 3 -> {
          if (b.length > 0) {
            int from = r.nextInt(b.length);
            int to = from + r.nextInt(b.length - from + 1);
            byte[] cut = new byte[b.length - (to - from)];
            System.arraycopy(b, 0, cut, 0, from);
            System.arraycopy(b, to, cut, from, b.length - to);
            b = cut;
          }
        }
        case 4 -> b = insert(b, r.nextInt(b.length + 1), tokens.get(r.nextInt(tokens.size())));
        case 5 ->
            b =
                nest(
                    b,
                    r.nextInt(b.length + 1),
                    opener,
                    1 + r.nextInt(r.nextBoolean() ? 100 : 20_000));
        default -> {
          if (b.length > 0) {
            byte[] odd = {0, (byte) 0xff, 0x7f, (byte) 0x80, '"', '\\', '\n'};
            b[r.nextInt(b.length)] = odd[r.nextInt(odd.length)];
          }
        }
      }
    }
    return b;
  }

  public static byte[] nest(byte[] b, int at, byte[] opener, int depth) {
    byte[] deep = new byte[opener.length * depth];
    for (int i = 0; i < depth; i++) {
      System.arraycopy(opener, 0, deep, i * opener.length, opener.length);
    }
    return insert(b, at, deep);
  }

  public static byte[] insert(byte[] b, int at, byte[] piece) {
    byte[] out = new byte[b.length + piece.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(piece, 0, out, at, piece.length);
    System.arraycopy(b, at, out, at + piece.length, b.length - at);
    return out;
  }

  public static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Hostile fragments of JSON text: huge numbers, long strings, broken escapes, stray closers. */
  public static final List<byte[]> JSON_TOKENS =
      List.of(
          utf8("1e999999999"),
          utf8("-99999999999999999999999999999999999999"),
          utf8("\"\\u"),
          utf8("\"\\ud800\""),
          utf8("\"" + "a".repeat(100_000) + "\""),
          utf8("]}]}"),
          utf8("null"),
          utf8("{\"\":[]}"),
          utf8("\u0000"),
          new byte[] {(byte) 0xc3, (byte) 0x28, (byte) 0xf0, (byte) 0x9f});

  /** A random JSON value, its depth bounded. */
  public static JsonNode randomNode(Random r, int depth) {
    switch (r.nextInt(depth <= 0 ? 7 : 9)) {
      case 0:
        return NODES.nullNode();
      case 1:
        return NODES.booleanNode(r.nextBoolean());
      case 2:
        return NODES.numberNode(r.nextBoolean() ? r.nextLong() : r.nextInt(3) - 1);
      case 3:
        return NODES.numberNode(r.nextBoolean() ? r.nextDouble() * 1e300 : -0.5);
      case 4:
        return NODES.textNode("");
      case 5:
        return NODES.textNode(randomText(r, 1 + r.nextInt(r.nextInt(10) == 0 ? 70_000 : 60)));
      case 6:
        return NODES.binaryNode(randomBytes(r, 16));
      case 7:
        {
          ArrayNode a = NODES.arrayNode();
          for (int i = 0, n = r.nextInt(4); i < n; i++) {
            a.add(randomNode(r, depth - 1));
          }
          return a;
        }
      default:
        {
          ObjectNode o = NODES.objectNode();
          for (int i = 0, n = r.nextInt(4); i < n; i++) {
            o.set(randomText(r, 1 + r.nextInt(6)), randomNode(r, depth - 1));
          }
          return o;
        }
    }
  }

  public static String randomText(Random r, int length) {
    String alphabet = "abcdef0123456789/.:-_ \n\t\"\\$é\u0000\ud800";
    StringBuilder sb = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return sb.toString();
  }

  /**
   * A valid object with one to three of its fields (at any depth) replaced by random values,
   * removed, or joined by a new one.
   */
  public static ObjectNode mutateTree(Random r, ObjectNode valid) {
    ObjectNode copy = valid.deepCopy();
    for (int round = 0, n = 1 + r.nextInt(3); round < n; round++) {
      List<ObjectNode> objects = new ArrayList<>();
      collect(copy, objects);
      ObjectNode target = objects.get(r.nextInt(objects.size()));
      List<String> names = new ArrayList<>();
      target.fieldNames().forEachRemaining(names::add);
      int k = r.nextInt(4);
      if (names.isEmpty() || k == 3) {
        target.set(r.nextBoolean() ? randomText(r, 4) : "$type", randomNode(r, 3));
      } else if (k == 2) {
        target.remove(names.get(r.nextInt(names.size())));
      } else {
        target.set(names.get(r.nextInt(names.size())), randomNode(r, 3));
      }
    }
    return copy;
  }

  private static void collect(JsonNode n, List<ObjectNode> into) {
    if (n instanceof ObjectNode o) {
      into.add(o);
    }
    for (JsonNode child : n) {
      collect(child, into);
    }
  }
}
