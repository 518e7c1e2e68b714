package dev.knotless.testing.distributed;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DoorbellPartitionsTest {

  /** Hashes and partitions (of 4) as kafka-clients 4.1.2's {@code Utils.murmur2} gives them. */
  @Test
  void keysHashAndFallOnPartitionsAsKafkasDefaultPartitionerPutsThem() {
    String[] keys = {
      "", "a", "ab", "abc", "abcd", "did:plc:mpgj7ebzxutlfxtvuzijj4pi/3n3sb6fahqhyc"
    };
    int[] hashes = {275646681, -1563381124, 316155434, 479470107, -1323649548, -1457359705};
    int[] partitions = {1, 0, 2, 3, 0, 3};
    for (int i = 0; i < keys.length; i++) {
      assertEquals(
          hashes[i], DoorbellPartitions.murmur2(keys[i].getBytes(StandardCharsets.UTF_8)), keys[i]);
      assertEquals(partitions[i], DoorbellPartitions.of(keys[i], 4), keys[i]);
    }
  }
}
