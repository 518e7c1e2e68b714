package dev.knotless.runner.mask;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A quick measure that a flood of output goes through a masker at a rate a run will not notice. */
class MaskerThroughputTest {

  static final int TOTAL = 100 << 20;

  /** 64 KiB of build output: plain lines, colour codes, URLs with escapes, a progress bar. */
  static byte[] chunk() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; sb.length() < 64 << 10; i++) {
      switch (i % 4) {
        case 0 -> sb.append("[INFO] Compiling 42 source files to /work/target/classes\n");
        case 1 -> sb.append("\033[1;32mPASS\033[0m src/test/parse.test.js (12 ms)\n");
        case 2 -> sb.append("GET https://registry.example/pkg%2Fname?q=a%20b 200 \\/ ok\n");
        default -> sb.append("\r[=====>     ] 52% 1.2 MB/s ");
      }
    }
    return sb.substring(0, 64 << 10).getBytes(StandardCharsets.UTF_8);
  }

  static double megabytesPerSecond(SecretMask mask, byte[] chunk) {
    long best = Long.MAX_VALUE;
    for (int round = 0; round < 3; round++) {
      Masker m = new Masker(mask, Masker.Overflow.EMIT);
      long passed = 0;
      long t0 = System.nanoTime();
      for (long done = 0; done < TOTAL; done += chunk.length) {
        passed += m.write(chunk, 0, chunk.length).length;
      }
      passed += m.finish().length;
      best = Math.min(best, System.nanoTime() - t0);
      assertEquals(TOTAL, passed, "nothing masked, nothing lost");
    }
    return TOTAL / 1e6 / (best / 1e9);
  }

  @Test
  void a100MegabyteFloodGoesThroughAThreeSecretMaskAtOver50MegabytesASecond() {
    SecretMask mask =
        SecretMask.of(
            List.of(
                "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
                "npm_0123456789abcdef",
                "s3cr3t/pass word%"));
    byte[] chunk = chunk();
    double masked = megabytesPerSecond(mask, chunk);
    double none = megabytesPerSecond(SecretMask.none(), chunk);
    System.out.printf(
        "masker throughput, 100 MB in 64 KiB writes: %.0f MB/s with 3 secrets, %.0f MB/s with none%n",
        masked, none);
    assertTrue(masked > 50, masked + " MB/s");
    assertTrue(none > 200, none + " MB/s");
  }
}
