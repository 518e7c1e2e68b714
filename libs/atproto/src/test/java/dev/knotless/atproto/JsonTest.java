package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void readsWhatTheDataBindingReads() throws Exception {
    String text =
        "{\"s\":\"caf\\u00e9 \\\"q\\\" \\n\",\"i\":7,\"l\":5000000000,"
            + "\"b\":123456789012345678901234567890,\"d\":1.5,\"t\":true,\"f\":false,\"n\":null,"
            + "\"a\":[1,[2,{}],[]],\"o\":{\"x\":{\"y\":\"z\"}}}";
    JsonNode ours = Json.read(text.getBytes(StandardCharsets.UTF_8));
    assertEquals(new ObjectMapper().readTree(text), ours);
    assertTrue(ours.get("i").isInt());
    assertTrue(ours.get("l").isLong());
    assertEquals(new BigInteger("123456789012345678901234567890"), ours.get("b").bigIntegerValue());
    assertEquals(ours, Json.read(text));
  }

  @Test
  void writesCompactJsonThatReadsBackTheSame() throws Exception {
    ObjectNode node = Json.object();
    node.put("text", "line\nbreak \"quoted\" é 𝄞");
    node.put("int", 3);
    node.put("long", 9_000_000_000L);
    node.put("big", new BigInteger("99999999999999999999"));
    node.put("double", 0.25);
    node.put("yes", true);
    node.putNull("none");
    node.putArray("list").add(1).add("two").addObject().put("three", 3);
    node.put("bytes", new byte[] {1, 2, 3});
    byte[] written = Json.write(node);
    assertEquals(
        new String(new ObjectMapper().writeValueAsBytes(node), StandardCharsets.UTF_8),
        new String(written, StandardCharsets.UTF_8));
    JsonNode back = Json.read(written);
    assertEquals("AQID", back.get("bytes").textValue());
    node.put("bytes", "AQID");
    assertEquals(node, back);
    assertEquals(Json.text(node), new String(Json.write(back), StandardCharsets.UTF_8));
  }

  @Test
  void aFieldGivenTwiceIsRefusedByName() {
    IOException e =
        assertThrows(IOException.class, () -> Json.read("{\"did\":\"a\",\"did\":\"b\"}"));
    assertTrue(e.getMessage().contains("\"did\" is given twice"), e.getMessage());
  }

  @Test
  void contentAfterTheValueIsRefused() throws Exception {
    IOException e = assertThrows(IOException.class, () -> Json.read("{\"a\":1} {\"a\":2}"));
    assertTrue(e.getMessage().startsWith("more after the JSON value"), e.getMessage());
    assertEquals(Json.nodes().arrayNode().add(1), Json.read("[1]  \n"));
  }

  @Test
  void emptyAndBrokenDocumentsAreRefused() {
    assertThrows(IOException.class, () -> Json.read(new byte[0]));
    assertThrows(IOException.class, () -> Json.read("   "));
    assertThrows(IOException.class, () -> Json.read("{\"a\":"));
    assertThrows(IOException.class, () -> Json.read("{\"a\" 1}"));
    assertThrows(IOException.class, () -> Json.read("[1,]"));
  }

  @Test
  void deepNestingIsRefusedBeforeItCanExhaustTheStack() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    assertThrows(IOException.class, () -> Json.read(deep));
  }
}
